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
// Layout: header `SVCPAGE1`, page size, page count, entries (u32 big-endian each); per entry the page
// number, the crc32 of the page and the page; trailer `SVCPEND1` and the entry count again.

import fs from 'node:fs';
import path from 'node:path';
import { StoreError } from '../../types.js';
import { fsyncDir, writeFileDurably } from './durable-file.js';
import { readIfExists } from './journal.js';
import { crc32 } from './journal-format.js';

const MAGIC = Buffer.from('SVCPAGE1', 'latin1');
const END = Buffer.from('SVCPEND1', 'latin1');
const HEADER = 20;
const ENTRY = 8;
const TRAILER = 12;
/** Pages written per call (with a yield between): bounds the main thread's share of a checkpoint. */
const BATCH = 256;

export interface PageImage {
  pageSize: number;
  /** Pages in the database: the file is cut to pageCount x pageSize. */
  pageCount: number;
  /** Page number (from 1) -> bytes; at most pageCount. */
  pages: Map<number, Uint8Array>;
}

export const pagesPath = (db: string) => `${db}.pages`;

function u32s(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v, 4 * i));
  return b;
}

/** The page numbers in file order. */
function order(img: PageImage): number[] {
  return [...img.pages.keys()].filter((n) => n <= img.pageCount).sort((a, b) => a - b);
}

/** Where a checkpoint of pages is; a test hook waits (or throws, as a crash would) at each. */
export type PageStep = 'writing-redo' | 'redo-written' | 'applying' | 'applied';
export type PageStepHook = (step: PageStep) => Promise<void>;

/** Steps 1 to 3 above; a checkpoint that changed every page writes a new file instead. */
export async function checkpointPages(db: string, img: PageImage, at: PageStepHook = async () => {}): Promise<void> {
  if (order(img).length === img.pageCount) return writeWhole(db, img);
  await writeRedo(db, img, at);
  await at('redo-written');
  await applyImage(db, img, at);
  await at('applied');
  await fs.promises.rm(pagesPath(db), { force: true });
  await fsyncDir(path.dirname(db));
}

/** Every page into a new file swapped in by rename (a new database, or one rewritten entirely). */
function writeWhole(db: string, img: PageImage): Promise<void> {
  return writeFileDurably(db, async (fh) => {
    const nums = order(img);
    for (let i = 0; i < nums.length; i += BATCH) {
      const bufs = nums.slice(i, i + BATCH).map((n) => img.pages.get(n)!);
      await writeAt(fh, bufs, i * img.pageSize);
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

function writeRedo(db: string, img: PageImage, at: PageStepHook): Promise<void> {
  const nums = order(img);
  return writeFileDurably(pagesPath(db), async (fh) => {
    let offset = await writeAt(fh, [MAGIC, u32s(img.pageSize, img.pageCount, nums.length)], 0);
    await at('writing-redo');
    for (let i = 0; i < nums.length; i += BATCH) {
      const bufs: Uint8Array[] = [];
      for (const pgno of nums.slice(i, i + BATCH)) {
        const page = img.pages.get(pgno)!;
        bufs.push(u32s(pgno, crc32(page)), page);
      }
      offset += await writeAt(fh, bufs, offset);
    }
    await writeAt(fh, [END, u32s(nums.length)], offset);
  });
}

/** Step 2: the pages into the database file at their offsets, the file cut to its page count. */
async function applyImage(db: string, img: PageImage, at: PageStepHook = async () => {}): Promise<void> {
  const nums = order(img);
  const fh = await fs.promises.open(db, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
  try {
    // Runs of consecutive pages go out as one positioned writev each.
    for (let i = 0; i < nums.length; ) {
      let j = i + 1;
      while (j < nums.length && j - i < BATCH && nums[j] === nums[j - 1]! + 1) j++;
      await writeAt(
        fh,
        nums.slice(i, j).map((n) => img.pages.get(n)!),
        (nums[i]! - 1) * img.pageSize,
      );
      if (i === 0) await at('applying');
      i = j;
    }
    await fh.truncate(img.pageCount * img.pageSize);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Reads a redo file; throws when it is not whole (it was renamed into place only once it was). */
export function readRedo(file: string, buf: Buffer): PageImage {
  const bad = (why: string) =>
    new StoreError('corrupt', `${file} is damaged (${why}); it was complete when written, so the disk changed it since`);
  if (buf.length < HEADER + TRAILER || !buf.subarray(0, 8).equals(MAGIC)) throw bad('no header');
  const pageSize = buf.readUInt32BE(8);
  const pageCount = buf.readUInt32BE(12);
  const entries = buf.readUInt32BE(16);
  if (buf.length !== HEADER + entries * (ENTRY + pageSize) + TRAILER) throw bad(`${buf.length} bytes for ${entries} pages`);
  const tail = buf.length - TRAILER;
  if (!buf.subarray(tail, tail + 8).equals(END) || buf.readUInt32BE(tail + 8) !== entries) throw bad('no trailer');
  const pages = new Map<number, Uint8Array>();
  for (let k = 0, at = HEADER; k < entries; k++, at += ENTRY + pageSize) {
    const page = buf.subarray(at + ENTRY, at + ENTRY + pageSize);
    if (crc32(page) !== buf.readUInt32BE(at + 4)) throw bad(`checksum of page ${buf.readUInt32BE(at)}`);
    pages.set(buf.readUInt32BE(at), page);
  }
  return { pageSize, pageCount, pages };
}

/**
 * Finishes a checkpoint a crash interrupted after its redo file was complete, and drops one that
 * never got that far. Returns whether pages were written into the database.
 */
export async function recoverPages(db: string): Promise<boolean> {
  await fs.promises.rm(`${pagesPath(db)}.tmp`, { force: true });
  await fs.promises.rm(`${db}.tmp`, { force: true });
  const buf = readIfExists(pagesPath(db));
  if (!buf) return false;
  await applyImage(db, readRedo(pagesPath(db), buf));
  await fs.promises.rm(pagesPath(db), { force: true });
  await fsyncDir(path.dirname(db));
  return true;
}
