// The changed pages of one checkpoint, written into `svc.db` through a redo file so that a crash at
// any moment leaves a database that opens:
//
//   1. `<db>.pages.tmp` gets every changed page with its checksum; fsync; renamed to `<db>.pages`;
//      directory fsync. Until the rename, `svc.db` and the journals are untouched.
//   2. The pages are written into `svc.db` at their offsets and the file cut to the new page
//      count; fsync. A crash here leaves `svc.db` half old, half new, and `<db>.pages` whole.
//   3. `<db>.pages` is removed; directory fsync.
//
// Whoever opens the database first finishes a `<db>.pages` it finds (step 2 again: writing the same
// pages twice changes nothing) and drops a `<db>.pages.tmp` (a checkpoint that never committed).
// A checkpoint that changed every page (a new database) writes `<db>.tmp` and renames it instead.
//
// Both steps go slice by slice through one reused buffer: a slice of pages is copied from the
// database (step 1) or read back from the redo file (step 2) and written, and the next slice waits
// for that write. No step holds more than one slice, whatever the checkpoint's size, and each
// turn's share of the main thread is one slice's copy. The layout is in redo-format.ts.

import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir, writeFileDurably } from './durable-file.js';
import { crc32 } from './journal-format.js';
import type { PageTracker } from './page-tracker.js';
import { damaged, decodeFrame, encodeHeader, encodeTrailer, ENTRY, HEADER, TRAILER, type RedoHeader } from './redo-format.js';

/** Pages per slice: 1 MiB of 4 KiB pages, copied (and checksummed) in well under a millisecond. */
export const SLICE = 256;

/** The changed pages of one checkpoint, as the database held them when it started. */
export interface PageSource {
  pageSize: number;
  /** Pages in the database: the file is cut to pageCount x pageSize. */
  pageCount: number;
  /** The changed page numbers (from 1), ascending; those past pageCount are left out. */
  nums: Uint32Array;
  /** Copies the checkpoint's bytes of page `pgno` into `into` (pageSize bytes); each page once. */
  read(pgno: number, into: Uint8Array): void;
}

export const pagesPath = (db: string) => `${db}.pages`;

/**
 * Where a checkpoint of pages is; a test hook waits (or throws, as a crash would) at each.
 * `redo-slice`: the first slice of the redo file is written and more follow (a crash between slices).
 */
export type PageStep = 'writing-redo' | 'redo-slice' | 'redo-written' | 'applying' | 'applied';
export type PageStepHook = (step: PageStep) => Promise<void>;

const noStep: PageStepHook = async () => {};

/** Steps 1 to 3 above, `slice` pages at a time; a checkpoint that changed every page writes a new file instead. */
export async function checkpointPages(db: string, src: PageSource, at: PageStepHook = noStep, slice = SLICE): Promise<void> {
  let end = src.nums.length;
  while (end > 0 && src.nums[end - 1]! > src.pageCount) end--;
  const nums = src.nums.subarray(0, end);
  if (nums.length === src.pageCount) return writeWhole(db, src, nums, slice);
  await writeRedo(db, src, nums, at, slice);
  await at('redo-written');
  await applyRedo(db, { verify: false, slice }, at);
  await at('applied');
  await fs.promises.rm(pagesPath(db), { force: true });
  await fsyncDir(path.dirname(db));
}

/**
 * Writes the pages `tracker` saw change since its last snapshot into `db` (the checkpoint above,
 * the database `pageCount` pages long); when it fails they count as changed again.
 */
export async function writeTrackedPages(
  db: string,
  tracker: PageTracker,
  pageCount: number,
  at?: PageStepHook,
  slice?: number,
): Promise<void> {
  const nums = tracker.snapshot();
  try {
    const src = { pageSize: tracker.pageSize, pageCount, nums, read: (pgno: number, into: Uint8Array) => tracker.copyInto(pgno, into) };
    await checkpointPages(db, src, at, slice);
    tracker.release();
  } catch (err) {
    tracker.release(nums);
    throw err;
  }
}

/**
 * Writes `image`, an export of the whole database `tracker` follows (when it does), over `db`: the
 * export is every page as of now, so tracking starts again from it; if the write fails, the next
 * checkpoint must be whole again (`lost`, named `why` unless it already was).
 */
export async function writeExport(db: string, image: Uint8Array, tracker: PageTracker | undefined, why: string): Promise<void> {
  const lost = tracker?.lost;
  tracker?.reset();
  try {
    await writeFileDurably(db, image);
  } catch (err) {
    if (tracker) tracker.lost = lost ?? why;
    throw err;
  }
}

/** Every page into a new file swapped in by rename (a new database, or one rewritten entirely). */
function writeWhole(db: string, src: PageSource, nums: Uint32Array, slice: number): Promise<void> {
  const ps = src.pageSize;
  const buf = Buffer.allocUnsafe(Math.min(slice, nums.length) * ps);
  return writeFileDurably(db, async (fh) => {
    for (let i = 0; i < nums.length; i += slice) {
      const n = Math.min(slice, nums.length - i);
      for (let k = 0; k < n; k++) src.read(nums[i + k]!, buf.subarray(k * ps, (k + 1) * ps));
      await writeAt(fh, [buf.subarray(0, n * ps)], i * ps);
    }
  });
}

/** One positioned writev that must write everything. */
async function writeAt(fh: fs.promises.FileHandle, bufs: Uint8Array[], at: number): Promise<number> {
  const want = bufs.reduce((n, b) => n + b.length, 0);
  const { bytesWritten } = await fh.writev(bufs, at);
  if (bytesWritten !== want) throw new Error(`short write (${bytesWritten} of ${want} bytes)`);
  return want;
}

/** Step 1: the redo file, a slice of entries per write. */
function writeRedo(db: string, src: PageSource, nums: Uint32Array, at: PageStepHook, slice: number): Promise<void> {
  const ps = src.pageSize;
  const entry = ENTRY + ps;
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(slice, nums.length)) * entry);
  return writeFileDurably(pagesPath(db), async (fh) => {
    let offset = await writeAt(fh, [encodeHeader({ pageSize: ps, pageCount: src.pageCount, entries: nums.length })], 0);
    await at('writing-redo');
    for (let i = 0; i < nums.length; i += slice) {
      const n = Math.min(slice, nums.length - i);
      for (let k = 0; k < n; k++) {
        const pgno = nums[i + k]!;
        const page = buf.subarray(k * entry + ENTRY, (k + 1) * entry);
        src.read(pgno, page);
        buf.writeUInt32BE(pgno, k * entry);
        buf.writeUInt32BE(crc32(page), k * entry + 4);
      }
      offset += await writeAt(fh, [buf.subarray(0, n * entry)], offset);
      if (i === 0 && n < nums.length) await at('redo-slice');
    }
    await writeAt(fh, [encodeTrailer(nums.length)], offset);
  });
}

/** Reads exactly `into.length` bytes at `position` (the redo file's size was checked first). */
async function readAt(fh: fs.promises.FileHandle, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await fh.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error(`the redo file ended ${into.length - done} bytes early`);
    done += bytesRead;
  }
}

/** Checks the redo file's frame and returns its header. */
async function readFrame(fh: fs.promises.FileHandle, file: string): Promise<RedoHeader> {
  const size = (await fh.stat()).size;
  const head = Buffer.alloc(HEADER);
  const tail = Buffer.alloc(TRAILER);
  if (size >= HEADER + TRAILER) {
    await readAt(fh, head, 0);
    await readAt(fh, tail, size - TRAILER);
  }
  return decodeFrame(file, size, head, tail);
}

/** Calls `each` with every slice of entries of the redo file, read into one reused buffer. */
async function eachSlice(
  fh: fs.promises.FileHandle,
  h: RedoHeader,
  slice: number,
  each: (buf: Buffer, n: number) => Promise<void> | void,
): Promise<void> {
  const entry = ENTRY + h.pageSize;
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(slice, h.entries)) * entry);
  for (let i = 0; i < h.entries; i += slice) {
    const n = Math.min(slice, h.entries - i);
    await readAt(fh, buf.subarray(0, n * entry), HEADER + i * entry);
    await each(buf, n);
  }
}

/**
 * Step 2: the pages of the redo file into the database file at their offsets, the file cut to its
 * page count. `verify` checks every page's checksum before the database is touched (a redo file
 * found at open; one this process just wrote is not read for that).
 */
async function applyRedo(db: string, o: { verify: boolean; slice: number }, at: PageStepHook = noStep): Promise<void> {
  const file = pagesPath(db);
  const fh = await fs.promises.open(file, 'r');
  try {
    const h = await readFrame(fh, file);
    const entry = ENTRY + h.pageSize;
    if (o.verify) {
      await eachSlice(fh, h, o.slice, (buf, n) => {
        for (let k = 0; k < n; k++) {
          const page = buf.subarray(k * entry + ENTRY, (k + 1) * entry);
          if (crc32(page) !== buf.readUInt32BE(k * entry + 4)) throw damaged(file, `checksum of page ${buf.readUInt32BE(k * entry)}`);
        }
      });
    }
    const out = await fs.promises.open(db, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
    try {
      let first = true;
      await eachSlice(fh, h, o.slice, async (buf, n) => {
        // Runs of consecutive pages go out as one positioned writev each.
        for (let k = 0; k < n; ) {
          const start = buf.readUInt32BE(k * entry);
          let j = k + 1;
          while (j < n && buf.readUInt32BE(j * entry) === start + (j - k)) j++;
          const pages: Buffer[] = [];
          for (let x = k; x < j; x++) pages.push(buf.subarray(x * entry + ENTRY, (x + 1) * entry));
          await writeAt(out, pages, (start - 1) * h.pageSize);
          k = j;
        }
        if (first) await at('applying');
        first = false;
      });
      await out.truncate(h.pageCount * h.pageSize);
      await out.sync();
    } finally {
      await out.close();
    }
  } finally {
    await fh.close();
  }
}

/**
 * Finishes a checkpoint a crash interrupted after its redo file was complete, and drops one that
 * never got that far. Returns whether pages were written into the database. A damaged redo file
 * throws (`corrupt`) before the database is touched.
 */
export async function recoverPages(db: string): Promise<boolean> {
  await fs.promises.rm(`${pagesPath(db)}.tmp`, { force: true });
  await fs.promises.rm(`${db}.tmp`, { force: true });
  if (!fs.existsSync(pagesPath(db))) return false;
  await applyRedo(db, { verify: true, slice: SLICE });
  await fs.promises.rm(pagesPath(db), { force: true });
  await fsyncDir(path.dirname(db));
  return true;
}
