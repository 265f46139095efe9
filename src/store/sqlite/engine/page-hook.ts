// The page hook: sql.js's file reads and writes, seen from JavaScript.
//
// sql.js keeps each database as a file in an in-memory file system it does not expose, and its only
// way out is `export()`: a synchronous copy of the whole file. SQLite itself reads and writes pages
// through lseek + read/write calls that the wasm module imports from JavaScript, so wrapping those
// imports when the module is instantiated shows every page written to a database file (a
// PageTracker, page-tracker.ts, notes them for the next checkpoint) and lets pages never written
// since the open be read from `svc.db` on demand instead of loaded at start.
//
// The import names are minified and belong to one sql.js build: KNOWN_BUILDS names them for the
// builds this svc was tested with, and a self-test at load checks the hook sees a known write. On any
// other build the hook stays off and checkpoints write whole images, as before it existed.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PageTracker, type BaseFile } from './page-tracker.js';

export { PageTracker, type BaseFile } from './page-tracker.js';

/** The imports (by their minified names) SQLite's file writes go through. */
interface ImportNames {
  /** __syscall_openat(dirfd, path, flags, varargs) -> fd */
  openat: string;
  /** fd_seek(fd, offset: bigint, whence, newOffsetPtr) -> errno */
  seek: string;
  /** fd_write(fd, iovs, iovsLen, nwrittenPtr) -> errno */
  write: string;
  /** fd_read(fd, iovs, iovsLen, nreadPtr) -> errno */
  read: string;
  /** __syscall_ftruncate64(fd, length: bigint) -> errno */
  truncate: string;
}

const KNOWN_BUILDS: Record<string, ImportNames> = {
  '1.16.0': { openat: 'x', seek: 'E', write: 'q', read: 't', truncate: 'J' },
};

type ImportFn = (...args: never[]) => unknown;

// The few WebAssembly shapes used here (the project's TypeScript libs do not declare them).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  Memory: abstract new (...args: never[]) => WasmMemory;
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: WasmInstance }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Where the hook keeps the arguments of its own reads, inside the wasm memory. */
interface Scratch {
  iov: number;
  out: number;
  page: number;
  size: number;
}

type Rw = (fd: number, iovs: number, n: number, out: number) => number;
type Seek = (fd: number, off: bigint, whence: number, out: number) => number;

/** The wrapped file-system imports of one sql.js module instance (one per thread). */
class FileWrites {
  private memory: WasmMemory | undefined;
  private bytes = new Uint8Array(0);
  private malloc: ((n: number) => number) | undefined;
  private scratch: Scratch | undefined;
  private readonly fdFile = new Map<number, string>();
  private readonly fileFd = new Map<string, number>();
  private readonly fdPosition = new Map<number, number>();
  private readonly trackers = new Map<string, PageTracker>();
  private seek: Seek | undefined;
  private read: Rw | undefined;

  /** Replaces the imports SQLite reads and writes through with ones that also serve trackers. */
  wrap(imports: Record<string, ImportFn>, names: ImportNames): void {
    const openat = imports[names.openat] as (dirfd: number, p: number, flags: number, va: number) => number;
    const seek = imports[names.seek] as Seek;
    const write = imports[names.write] as Rw;
    const read = imports[names.read] as Rw;
    const truncate = imports[names.truncate] as (fd: number, len: bigint) => number;
    this.seek = seek;
    this.read = read;
    imports[names.openat] = ((dirfd: number, p: number, flags: number, va: number) => {
      const fd = openat(dirfd, p, flags, va);
      if (fd >= 0) {
        const file = path.posix.basename(this.cString(p));
        this.fdFile.set(fd, file);
        this.fileFd.set(file, fd);
        this.fdPosition.set(fd, 0);
      }
      return fd;
    }) as ImportFn;
    imports[names.seek] = ((fd: number, off: bigint, whence: number, out: number) => {
      const r = seek(fd, off, whence, out);
      if (r === 0) this.fdPosition.set(fd, Number(new DataView(this.heap().buffer).getBigInt64(out, true)));
      return r;
    }) as ImportFn;
    imports[names.write] = ((fd: number, iovs: number, n: number, out: number) => {
      const tracker = this.trackers.get(this.fdFile.get(fd) ?? '');
      const position = this.fdPosition.get(fd) ?? 0;
      if (tracker) tracker.beforeWrite(position, this.iovBytes(iovs, n));
      const r = write(fd, iovs, n, out);
      if (r === 0 && tracker) {
        const done = new DataView(this.heap().buffer).getUint32(out, true);
        tracker.wrote(position, done);
        this.fdPosition.set(fd, position + done);
      }
      return r;
    }) as ImportFn;
    imports[names.read] = ((fd: number, iovs: number, n: number, out: number) => {
      const tracker = this.trackers.get(this.fdFile.get(fd) ?? '');
      // A read of pages only the base file holds skips the in-memory file: reading its untouched
      // zeros would still fault each page in. (sqlite seeks before every read, so the in-memory
      // file's own position does not matter.)
      if (tracker?.base && n === 1 && this.readBase(tracker, fd, iovs, out)) return 0;
      const r = read(fd, iovs, n, out);
      if (r === 0 && tracker?.base) this.eachIov(fd, iovs, n, out, (position, bytes) => tracker.fill(position, bytes));
      return r;
    }) as ImportFn;
    imports[names.truncate] = ((fd: number, len: bigint) => {
      const r = truncate(fd, len);
      if (r === 0) this.trackers.get(this.fdFile.get(fd) ?? '')?.truncate(Number(len));
      return r;
    }) as ImportFn;
  }

  attach(exports: Record<string, unknown>): void {
    this.memory = Object.values(exports).find((v): v is WasmMemory => v instanceof wasmApi.Memory);
  }

  /** The module's allocator (for the hook's own reads of the in-memory file). */
  useMalloc(malloc: (n: number) => number): void {
    this.malloc = malloc;
  }

  track(file: string, pageSize: number, base: BaseFile | undefined): PageTracker {
    const tracker = new PageTracker(pageSize, base, (pgno, into) => this.readPage(file, pgno, into));
    this.trackers.set(file, tracker);
    return tracker;
  }

  untrack(file: string): void {
    const base = this.trackers.get(file)?.base;
    this.trackers.delete(file);
    if (base) fs.closeSync(base.fd);
  }

  /**
   * Reads one page of the in-memory file through the unwrapped imports, then puts the file's
   * position back where sqlite left it (a copy on write runs in the middle of sqlite's write).
   */
  private readPage(file: string, pgno: number, into: Uint8Array): void {
    const fd = this.fileFd.get(file);
    if (fd === undefined) throw new Error(`page hook: ${file} is not open`);
    const s = this.scratchFor(into.length);
    const view = new DataView(this.heap().buffer);
    view.setUint32(s.iov, s.page, true);
    view.setUint32(s.iov + 4, into.length, true);
    const ok = this.seek!(fd, BigInt((pgno - 1) * into.length), 0, s.out) === 0 && this.read!(fd, s.iov, 1, s.out) === 0;
    const got = new DataView(this.heap().buffer).getUint32(s.out, true);
    this.seek!(fd, BigInt(this.fdPosition.get(fd) ?? 0), 0, s.out);
    if (!ok || got !== into.length) throw new Error(`page hook: page ${pgno} of ${file} could not be read`);
    into.set(this.heap().subarray(s.page, s.page + into.length));
  }

  private scratchFor(size: number): Scratch {
    if (this.scratch && this.scratch.size >= size) return this.scratch;
    if (!this.malloc) throw new Error('page hook: no allocator');
    const at = this.malloc(16 + size);
    this.scratch = { iov: at, out: at + 8, page: at + 16, size };
    return this.scratch;
  }

  /** Bytes the iovecs of one call describe. */
  private iovBytes(iovs: number, n: number): number {
    const view = new DataView(this.heap().buffer);
    let total = 0;
    for (let k = 0; k < n; k++) total += view.getUint32(iovs + 8 * k + 4, true);
    return total;
  }

  /** Serves one read from the base file alone when none of its pages was written since the open. */
  private readBase(tracker: PageTracker, fd: number, iov: number, out: number): boolean {
    const heap = this.heap();
    const view = new DataView(heap.buffer);
    const ptr = view.getUint32(iov, true);
    const len = view.getUint32(iov + 4, true);
    const position = this.fdPosition.get(fd) ?? 0;
    if (!tracker.readsFromBase(position, len)) return false;
    tracker.fill(position, heap.subarray(ptr, ptr + len));
    view.setUint32(out, len, true);
    this.fdPosition.set(fd, position + len);
    return true;
  }

  /** Walks the buffers one read moved (the count at `out`), advancing the fd's position. */
  private eachIov(fd: number, iovs: number, n: number, out: number, each: (position: number, bytes: Uint8Array) => void): void {
    const heap = this.heap();
    const view = new DataView(heap.buffer);
    let left = view.getUint32(out, true);
    let position = this.fdPosition.get(fd) ?? 0;
    for (let k = 0; k < n && left > 0; k++) {
      const ptr = view.getUint32(iovs + 8 * k, true);
      const len = Math.min(view.getUint32(iovs + 8 * k + 4, true), left);
      each(position, heap.subarray(ptr, ptr + len));
      position += len;
      left -= len;
    }
    this.fdPosition.set(fd, position);
  }

  /** The wasm memory as bytes (its buffer is replaced whenever the memory grows). */
  private heap(): Uint8Array {
    const buffer = this.memory!.buffer;
    if (this.bytes.buffer !== buffer) this.bytes = new Uint8Array(buffer);
    return this.bytes;
  }

  private cString(ptr: number): string {
    const heap = this.heap();
    const end = heap.indexOf(0, ptr);
    return Buffer.from(heap.subarray(ptr, end < 0 ? ptr : end)).toString('utf8');
  }
}

const fileWrites = new FileWrites();
let hooked = false;

/** The import names of the installed sql.js build, if the hook knows them. */
function knownBuild(): ImportNames | undefined {
  // The package exports no ./package.json: it is found beside the wasm file's folder.
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(wasm), '..', 'package.json'), 'utf8')) as { version?: string };
  return KNOWN_BUILDS[pkg.version ?? ''];
}

/**
 * The `instantiateWasm` option for initSqlJs: instantiates the module with its file writes wrapped
 * (when the build is known; otherwise unwrapped, and pageTracking() stays off).
 */
export function instantiateWithHook(wasm: Promise<Uint8Array>) {
  return (info: Record<string, unknown>, receive: (instance: WasmInstance) => void): object => {
    const names = knownBuild();
    const env = Object.values(info)[0] as Record<string, ImportFn> | undefined;
    if (names && env && Object.keys(info).length === 1 && Object.values(names).every((n) => typeof env[n] === 'function')) {
      fileWrites.wrap(env, names);
      hooked = true;
    }
    void wasm.then(async (bytes) => {
      const { instance } = await wasmApi.instantiate(bytes, info);
      fileWrites.attach(instance.exports);
      receive(instance);
    });
    return {};
  };
}

/** The database handle the hook identifies a file by (sql.js names each database's file). */
interface NamedDatabase {
  filename?: string;
  run(sql: string): unknown;
  exec(sql: string): { values: unknown[][] }[];
}

/** Whether pages can be tracked (and read on demand) on this thread's sql.js. */
export function canTrackPages(): boolean {
  return hooked;
}

/**
 * Starts tracking the pages written to `db`'s file (reading the pages not written since from
 * `base`, when given); undefined when the hook is off. Call before the database is first read or
 * written: sqlite opens its file lazily, so right after the Database is made.
 */
export function trackPages(db: NamedDatabase, pageSize: number, base?: BaseFile): PageTracker | undefined {
  if (!hooked || !db.filename) return undefined;
  return fileWrites.track(db.filename, pageSize, base);
}

export function untrackPages(db: NamedDatabase): void {
  if (db.filename) fileWrites.untrack(db.filename);
}

/**
 * Whether tracking works on this build: a probe database written once must show its header page and
 * the probe row among the tracked pages. Run once per thread after loading sql.js.
 */
export function probeTracking(malloc: (n: number) => number, open: () => NamedDatabase & { close(): void }): string | undefined {
  if (!hooked) return 'the installed sql.js build is not one the page hook knows';
  fileWrites.useMalloc(malloc);
  const db = open();
  try {
    const tracker = trackPages(db, 4096);
    if (!tracker) return 'the page hook is not installed';
    const marker = 'svc-page-hook-probe';
    db.run(`CREATE TABLE probe (x TEXT); INSERT INTO probe VALUES ('${marker}')`);
    const pages = tracker.copy(tracker.snapshot());
    tracker.release();
    const header = pages.some((p) => Buffer.from(p.subarray(0, 16)).toString('latin1') === 'SQLite format 3\0');
    const row = pages.some((p) => Buffer.from(p).includes(marker));
    if (tracker.lost) return tracker.lost;
    return header && row ? undefined : 'the page hook did not see the probe write';
  } finally {
    untrackPages(db);
    db.close();
  }
}
