// The append-only journal of the sqlite backend. One line per record: `<crc32 hex>\t<json>\n`
// (JSON never holds a raw newline, so a line is a record). The records of one turn are built one
// after the other in one buffer (`frame`) and written together, with one write call, when the
// turn commits (`flush`); a group fdatasync, one in flight at a time, then covers every record
// written before it started. The journal spans generations (`<db>.journal.<gen>`): after a
// checkpoint switches files, the old one stays in the sync set until its records are durable, so a
// record is acknowledged only once every record before it, in any file, is on disk.

import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir } from './durable-file.js';
import { decodeRecords, encodeRecord, FrameBuilder, type Decoded } from './journal-format.js';

/** Path of the journal of generation `gen` for database file `dbPath`. */
export function journalPath(dbPath: string, gen: number): string {
  return `${dbPath}.journal.${gen}`;
}

/** Journal files present for `dbPath`, oldest generation first. */
export function listJournals(dbPath: string): { gen: number; path: string }[] {
  const dir = path.dirname(dbPath);
  const prefix = `${path.basename(dbPath)}.journal.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => ({ gen: Number(n.slice(prefix.length)), path: path.join(dir, n) }))
    .sort((a, b) => a.gen - b.gen);
}

/** A file's bytes, or undefined when there is no such file. */
export function readIfExists(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Reads and decodes one journal file (a missing file is empty). */
export function readJournal(file: string): Decoded & { fileBytes: number } {
  const buf = readIfExists(file);
  if (!buf) return { records: [], validBytes: 0, fileBytes: 0 };
  return { ...decodeRecords(buf), fileBytes: buf.length };
}

// ---- the writer ----

export interface JournalFaults {
  /** When it returns true, the next append (one turn's records) writes half its bytes and fails with ENOSPC. */
  failWrites?: () => boolean;
  /** When it returns true, the next group fdatasync fails with EIO. */
  failSyncs?: () => boolean;
}

interface JournalFile {
  gen: number;
  path: string;
  fd: number;
  /** Bytes of complete records: where the next record goes. */
  size: number;
  /** Written since the last successful fdatasync. */
  dirty: boolean;
  /** Newly created: its directory entry still needs an fsync. */
  dirSync: boolean;
  /** A failed append may have left bytes past `size` that could not be cut off yet. */
  broken: boolean;
  /** Superseded and covered by a durable checkpoint: close without syncing. */
  obsolete: boolean;
}

/** The writes waiting for the same group commit share one of these (one promise per turn, not per write). */
interface Waiter {
  /** Every record up to this count must be durable. */
  upto: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

function errnoError(code: string, message: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: ${message}`);
  err.code = code;
  return err;
}

function writeAll(fd: number, buf: Uint8Array, position: number): void {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off, position + off);
}

/** Appends records to the current generation's file and group-commits them. */
export class JournalWriter {
  private files: JournalFile[] = [];
  private appended = 0;
  private synced = 0;
  private waiters: Waiter[] = [];
  /** The newest group, while no fdatasync has started since it was made. */
  private open: Waiter | undefined;
  private flight: Promise<void> | undefined;
  private scheduled = false;

  /** Called just before a group fdatasync starts (the store commits its open transaction there). */
  beforeSync: (() => void) | undefined;
  /** The records of the open turn, built in place; `flush` writes them. */
  readonly frame = new FrameBuilder();

  constructor(private readonly faults: JournalFaults = {}) {}

  /** Whether a group fdatasync is in flight: records appended now wait for the next one. */
  get syncing(): boolean {
    return this.flight !== undefined;
  }

  /** Starts appending to `file` (generation `gen`), keeping `size` bytes of it. Synchronous. */
  switchTo(gen: number, file: string, size = 0): void {
    const existed = fs.existsSync(file);
    const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
    try {
      if (fs.fstatSync(fd).size !== size) fs.ftruncateSync(fd, size);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    this.files.push({ gen, path: file, fd, size, dirty: true, dirSync: !existed, broken: false, obsolete: false });
  }

  private get current(): JournalFile {
    const f = this.files[this.files.length - 1];
    if (!f) throw errnoError('EBADF', 'the journal is closed');
    return f;
  }

  /** Bytes in the current generation's file. */
  get currentBytes(): number {
    return this.files[this.files.length - 1]?.size ?? 0;
  }

  /** Where generation `gen`'s file ends in whole records (undefined: no file of it is open). */
  endOf(gen: number): number | undefined {
    return this.files.find((f) => f.gen === gen)?.size;
  }

  /** Bytes in every journal file still open. */
  get totalBytes(): number {
    return this.files.reduce((n, f) => n + f.size, 0);
  }

  /** Writes one record (not yet durable) and returns its framed size. Throws the fs error, leaving the file as before. */
  append(json: string): number {
    return this.appendFrame(encodeRecord(json));
  }

  /**
   * Writes the records built in `frame` since the last flush, with one write call. On failure the
   * file is left as before and those records are dropped, then throws the fs error. The waiters
   * that counted them wait only for the records before (the caller fails their turn itself), or
   * with `reject`, are rejected with the error.
   */
  flush(reject = false): void {
    if (this.frame.records === 0) return;
    const { bytes, records } = this.frame.take();
    try {
      this.appendFrame(bytes, records);
    } catch (err) {
      const rest: Waiter[] = [];
      for (const w of this.waiters) {
        if (w.upto <= this.appended) rest.push(w);
        else if (reject) w.reject(err as Error);
        else {
          w.upto = this.appended;
          rest.push(w);
        }
      }
      this.waiters = rest;
      if (this.open && !rest.includes(this.open)) this.open = undefined;
      throw err;
    }
  }

  /** `append` for lines already framed (encodeRecord, or `records` lines of a FrameBuilder). */
  appendFrame(buf: Uint8Array, records = 1): number {
    const f = this.current;
    if (f.broken) {
      fs.ftruncateSync(f.fd, f.size);
      f.broken = false;
    }
    try {
      if (this.faults.failWrites?.()) {
        writeAll(f.fd, buf.subarray(0, buf.length >> 1), f.size);
        throw errnoError('ENOSPC', 'no space left on device (injected)');
      }
      writeAll(f.fd, buf, f.size);
    } catch (err) {
      // Cut off whatever part of the record reached the file, so the next record follows a
      // complete one; if even that fails, retry before the next append.
      try {
        fs.ftruncateSync(f.fd, f.size);
      } catch {
        f.broken = true;
      }
      throw err;
    }
    f.size += buf.length;
    f.dirty = true;
    this.appended += records;
    return buf.length;
  }

  /** Removes the record just appended (its batch could not be committed). */
  unappend(bytes: number): void {
    const f = this.current;
    f.size -= bytes;
    try {
      fs.ftruncateSync(f.fd, f.size);
    } catch {
      f.broken = true;
    }
  }

  /**
   * Resolves once every record appended so far (and built in `frame`, once flushed) is durable;
   * rejects with the fs error if not. A flush that fails resolves its records' waiters with the
   * records before them: its turn learns of the failure from the flush.
   */
  sync(): Promise<void> {
    const upto = this.appended + this.frame.records;
    if (this.synced >= upto) return Promise.resolve();
    // No fdatasync has started since the open group was made: this record will be in the same one.
    const open = this.open;
    if (open) {
      open.upto = upto;
      return open.promise;
    }
    let resolve!: () => void;
    let reject!: (err: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const w: Waiter = { upto, promise, resolve, reject };
    this.waiters.push(w);
    this.open = w;
    this.schedule();
    return promise;
  }

  /** Resolves when no fdatasync is in flight. */
  async idle(): Promise<void> {
    while (this.flight) await this.flight;
  }

  /** Drops files of generations below `gen` (their records are in a durable checkpoint). */
  dropBefore(gen: number): void {
    for (const f of this.files) if (f.gen < gen && f !== this.files[this.files.length - 1]) f.obsolete = true;
    if (!this.flight) this.closeRetired();
  }

  /** Closes every file. Pending waiters are rejected. */
  async close(): Promise<void> {
    await this.idle();
    for (const f of this.files) fs.closeSync(f.fd);
    this.files = [];
    const err = errnoError('EBADF', 'the journal is closed');
    this.open = undefined;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run();
    });
  }

  private run(): void {
    if (this.flight || this.waiters.length === 0) return;
    this.beforeSync?.();
    try {
      // The store's commit (beforeSync) flushed already; a writer used alone flushes here.
      this.flush(true);
    } catch {
      // Dropped, and the waiters for them rejected (see flush).
    }
    const target = this.appended;
    // Every waiting group is covered by this fdatasync; later syncs start a new group.
    this.open = undefined;
    const batch = this.files.filter((f) => !f.obsolete && (f.dirty || f.dirSync));
    for (const f of batch) f.dirty = false;
    const flight = this.syncGroup(batch, target);
    this.flight = flight;
    void flight.then(() => {
      this.flight = undefined;
      this.closeRetired();
      if (this.waiters.length > 0) this.schedule();
    });
  }

  /** One group commit: makes `batch` durable and settles the waiters up to `target`. Never rejects. */
  private async syncGroup(batch: JournalFile[], target: number): Promise<void> {
    const dirs = [...new Set(batch.filter((f) => f.dirSync).map((f) => path.dirname(f.path)))];
    try {
      if (this.faults.failSyncs?.()) throw errnoError('EIO', 'i/o error (injected)');
      await Promise.all(batch.map((f) => fdatasync(f.fd)));
      await Promise.all(dirs.map(fsyncDir));
      for (const f of batch) f.dirSync = false;
      this.synced = Math.max(this.synced, target);
      this.settle(target, undefined);
    } catch (err) {
      for (const f of batch) f.dirty = true;
      this.settle(target, err as Error);
    }
  }

  private settle(target: number, err: Error | undefined): void {
    const rest: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.upto > target) rest.push(w);
      else if (err) w.reject(err);
      else w.resolve();
    }
    this.waiters = rest;
    // A group made while this fdatasync was in flight, for records it already covered, is settled
    // now: a later record must not join it (its promise has resolved), but start a group of its own.
    if (this.open && !rest.includes(this.open)) this.open = undefined;
  }

  /** Closes superseded files that are durable or obsolete. Only while no fdatasync is in flight. */
  private closeRetired(): void {
    const last = this.files[this.files.length - 1];
    this.files = this.files.filter((f) => {
      if (f === last || (!f.obsolete && (f.dirty || f.dirSync))) return true;
      fs.closeSync(f.fd);
      return false;
    });
  }
}

function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}
