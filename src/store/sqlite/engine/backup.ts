// Online backup of the sqlite store (#40 part 6): a copy of `svc.db` and of the journal tail that a
// restore opens like any store after a crash. It runs while writes go on:
//
// - `svc.db` changes only in checkpoints, and the checkpointer runs none while a backup copies
//   (Checkpointer.hold). A checkpoint is run first, so the copy is compact: the image holds nearly
//   everything and the journal tail is what was written since.
// - The journal is append-only and a file holds whole records up to the writer's size (a record
//   reaches the file whole, at its turn's commit), so a prefix of whole records is a consistent
//   state. Each generation is copied up to where it ended when the copy reached it; the last one
//   is then caught up until little is left, and that rest is copied, fsynced and the manifest
//   written in one synchronous step. So every write acknowledged before the backup answers is in it
//   (a write is acknowledged after its record reached the file), at the price of one short stall:
//   a tail of at most CATCH_UP bytes and three fsyncs.
//
// A redo file (`svc.db.pages`) left by a checkpoint that failed half way is copied too: the restore
// finishes it at open, as a start after that failure would.

import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listJournals } from './journal.js';
import { pagesPath } from './page-file.js';
import type { BackupFile, BackupResult } from '../../types.js';
import { SCHEMA_VERSION } from '../schema.js';

/** The manifest a backup folder holds, written last: a folder without it is not a backup. */
export const MANIFEST = 'backup.json';
/** Beside `svc.db`: when the last backup was taken and where (what `svc doctor` shows). */
export const lastBackupPath = (db: string) => `${db}.last-backup`;
/** The manifest's format; a restore refuses another. */
export const BACKUP_FORMAT = 1;

/** A journal tail this small is copied in the final synchronous step. */
const CATCH_UP = 256 * 1024;
const CHUNK = 1024 * 1024;
/**
 * Test hook (test/backup): the copy pauses this long once the tail's first pass is copied, so that
 * writes land between it and the final step, as they do in a long backup of a large store.
 */
const PAUSE_MS = Number(process.env.SVC_FAULT_BACKUP_PAUSE_MS ?? 0);

/** The store's side of a backup. */
export interface BackupSource {
  /** The database file (`svc.db`). */
  readonly file: string;
  /** Where the journal of generation `gen` ends in whole records now (undefined: not open for appends). */
  journalEnd(gen: number): number | undefined;
  /**
   * Writes the open turn's records to the journal and returns the last event seq given: every
   * event up to it is then in the journal's whole records (called in the final synchronous step).
   */
  settle(): number;
}

/** Checks that `dir` is absolute and empty or absent, and makes it. Throws a message for the operator. */
export function prepareBackupDir(dir: string): void {
  if (!path.isAbsolute(dir)) throw new Error(`dir: ${JSON.stringify(dir)} is not an absolute path`);
  let names: string[] | undefined;
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new Error(`dir: ${dir} is a file, not a folder`);
    if (code !== 'ENOENT') throw err;
  }
  if (names && names.length > 0) throw new Error(`dir: ${dir} is not empty; a backup goes into a new or empty folder`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Copies `bytes` of `from` (from `at`) to the end of the open file `to`. */
async function copyRange(from: fs.promises.FileHandle, to: fs.promises.FileHandle, at: number, bytes: number, buf: Buffer): Promise<void> {
  let done = 0;
  while (done < bytes) {
    const n = Math.min(buf.length, bytes - done);
    const { bytesRead } = await from.read(buf, 0, n, at + done);
    if (bytesRead === 0) throw new Error(`the file ended ${bytes - done} bytes early`);
    await to.write(buf, 0, bytesRead, at + done);
    done += bytesRead;
  }
}

/** The same, synchronously (the final step). */
function copyRangeSync(from: number, to: number, at: number, bytes: number): void {
  const buf = Buffer.allocUnsafe(bytes);
  let done = 0;
  while (done < bytes) {
    const n = fs.readSync(from, buf, done, bytes - done, at + done);
    if (n === 0) throw new Error(`the file ended ${bytes - done} bytes early`);
    done += n;
  }
  let off = 0;
  while (off < bytes) off += fs.writeSync(to, buf, off, bytes - off, at + off);
}

/**
 * Copies the store into `dir` (made by prepareBackupDir) and writes the manifest, `meta` with what
 * was copied. The caller keeps checkpoints from running meanwhile.
 */
export async function copyStore(src: BackupSource, dir: string, meta: Record<string, unknown>, now = new Date()): Promise<BackupResult> {
  const files: BackupFile[] = [];
  const buf = Buffer.allocUnsafe(CHUNK);
  for (const whole of [src.file, pagesPath(src.file)]) {
    const to = path.join(dir, path.basename(whole));
    try {
      await fs.promises.copyFile(whole, to, fs.constants.COPYFILE_EXCL);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(to)) continue;
      throw err;
    }
    const fh = await fs.promises.open(to, 'r+');
    await fh.sync().finally(() => fh.close());
    files.push({ name: path.basename(whole), bytes: (await fs.promises.stat(to)).size });
  }
  const journals = listJournals(src.file);
  const last = journals[journals.length - 1];
  let lastSeq: number | undefined;
  for (const j of journals) {
    const name = path.basename(j.path);
    const from = await fs.promises.open(j.path, 'r');
    const to = await fs.promises.open(path.join(dir, name), 'wx', 0o600);
    try {
      let copied = 0;
      let end = src.journalEnd(j.gen) ?? (await from.stat()).size;
      let paused = PAUSE_MS === 0;
      // The generation appends go to grows while it is copied: catch up until the rest is small.
      for (;;) {
        await copyRange(from, to, copied, end - copied, buf);
        copied = end;
        await to.sync();
        if (j !== last) break;
        if (!paused) await sleep(PAUSE_MS);
        paused = true;
        end = src.journalEnd(j.gen) ?? end;
        if (end - copied <= CATCH_UP) break;
      }
      if (j === last) {
        // The final step, synchronous: no write can be acknowledged between the end read here
        // and the answer, so every acknowledged write is in the copy, and the last seq given is the
        // copy's once the open turn's records are in the journal.
        lastSeq = src.settle();
        end = src.journalEnd(j.gen) ?? end;
        copyRangeSync(from.fd, to.fd, copied, end - copied);
        fs.fdatasyncSync(to.fd);
        copied = end;
      }
      files.push({ name, bytes: copied });
    } finally {
      await Promise.all([from.close(), to.close()]);
    }
  }
  const result: BackupResult = {
    dir,
    store_file: path.basename(src.file),
    taken_at: now.toISOString(),
    last_seq: lastSeq ?? src.settle(),
    files,
    bytes: files.reduce((n, f) => n + f.bytes, 0),
  };
  // The manifest is the answer too: the caller's fields (network, version) with the copy's.
  const manifest = { format: BACKUP_FORMAT, ...meta, schema_version: SCHEMA_VERSION, ...result };
  writeSmallSync(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  fsyncDirSync(dir);
  // Not part of the backup: what doctor reads. A failure here does not undo a good backup.
  try {
    writeSmallSync(lastBackupPath(src.file), `${JSON.stringify({ taken_at: result.taken_at, dir, bytes: result.bytes })}\n`);
  } catch {}
  return manifest;
}

/** Writes a small file durably and synchronously (temp file, fsync, rename). */
function writeSmallSync(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

function fsyncDirSync(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw err;
  }
}

/** When the last backup of the store at `db` was taken, if one was (read by `svc doctor`). */
export function readLastBackup(db: string): { taken_at: string; dir: string; bytes: number } | undefined {
  try {
    return JSON.parse(fs.readFileSync(lastBackupPath(db), 'utf8')) as { taken_at: string; dir: string; bytes: number };
  } catch {
    return undefined;
  }
}
