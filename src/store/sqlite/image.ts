// The database file: loading sql.js, reading an image with headroom, and writing files safely
// (temp file, fsync, rename, fsync of the directory) for checkpoints and recovery alike.

import buffer from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { instantiateWithHook, probeTracking } from './page-hook.js';
import { recoverPages } from './page-file.js';

let sqlModule: Promise<SqlJsStatic> | undefined;
/** Why pages cannot be tracked on this thread's sql.js (undefined: they can). */
let trackingProblem: string | undefined;

/** The sql.js module, loaded once per thread, with the page hook (page-hook.ts) checked. */
export function loadSql(): Promise<SqlJsStatic> {
  const wasm = () => fs.promises.readFile(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
  sqlModule ??= initSqlJs({ instantiateWasm: instantiateWithHook(wasm()) } as Parameters<typeof initSqlJs>[0])
    .then((SQL) => {
      const malloc = (SQL as unknown as { _malloc: (n: number) => number })._malloc;
      trackingProblem = probeTracking(malloc, () => new SQL.Database() as never);
      return SQL;
    })
    .catch((err: unknown) => {
      sqlModule = undefined;
      throw err;
    });
  return sqlModule;
}

/** Why checkpoints of changed pages are off (after loadSql; undefined when they are on). */
export function pageTrackingProblem(): string | undefined {
  return trackingProblem;
}

/** Free space given to an opened database image: a quarter of its size, at least 16 MiB. */
const HEADROOM_FRACTION = 0.25;
const MIN_HEADROOM = 16 * 1024 * 1024;

/**
 * Reads the database file followed by zeroed headroom. sql.js keeps the file in a typed array
 * that grows by 12.5% with a copy of the whole file (two seconds of stall at a million messages);
 * SQLite trusts the page count in a valid header, so new pages land in the headroom and the array
 * is not copied until it is used up. Only a file whose header count is valid and exact is padded.
 */
export async function readImage(file: string): Promise<{ data: Buffer; size: number } | undefined> {
  // A checkpoint that stopped while writing its pages into the file is finished first.
  await recoverPages(file);
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(100);
    if (size >= 100) await fh.read(head, 0, 100, 0);
    const data = Buffer.alloc(size + headroomFor(head, size));
    let at = 0;
    while (at < size) {
      const { bytesRead } = await fh.read(data, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { data, size: at };
  } finally {
    await fh.close();
  }
}

/** A database file opened for reads on demand (page-hook.ts), and the empty in-memory file to give sql.js. */
export interface LazyImage {
  fd: number;
  size: number;
  pageSize: number;
  /** Zeros: untouched pages cost no memory, so the headroom is generous (1 GiB, or the database's size). */
  data: Buffer;
}

/** Headroom of a file opened on demand: growth past it costs one copy of the whole in-memory file. */
const LAZY_MIN_HEADROOM = 1024 * 1024 * 1024;

/**
 * Opens the database file for reading pages on demand instead of loading it: undefined when there
 * is no file, or its header does not give an exact page count (then readImage loads it whole).
 */
export async function openLazyImage(file: string): Promise<LazyImage | undefined> {
  await recoverPages(file);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const size = fs.fstatSync(fd).size;
  const head = Buffer.alloc(100);
  if (size >= 100) fs.readSync(fd, head, 0, 100, 0);
  if (headroomFor(head, size) === 0) {
    fs.closeSync(fd);
    return undefined;
  }
  const pageSize = head.readUInt16BE(16) === 1 ? 65536 : head.readUInt16BE(16);
  return { fd, size, pageSize, data: Buffer.alloc(lazyCapacity(size, pageSize)) };
}

/** The in-memory file's size for a database of `size` bytes: the database plus free headroom. */
function lazyCapacity(size: number, pageSize: number): number {
  const room = Math.max(LAZY_MIN_HEADROOM, size);
  return Math.min(size + Math.ceil(room / pageSize) * pageSize, Math.floor(buffer.constants.MAX_LENGTH / pageSize) * pageSize);
}

/**
 * A new database (no file yet) as the in-memory file to open: `image` (a migrated empty database)
 * followed by the same free headroom. Nothing is on disk until the first checkpoint writes it all.
 */
export function newImage(image: Uint8Array, pageSize: number): Buffer {
  const data = Buffer.alloc(lazyCapacity(image.length, pageSize));
  data.set(image, 0);
  return data;
}

/** Bytes of headroom for a database file of `size` bytes with this header (0: not padded). */
export function headroomFor(head: Buffer, size: number): number {
  if (size < 100 || head.length < 100) return 0;
  const pageSize = head.readUInt16BE(16) === 1 ? 65536 : head.readUInt16BE(16);
  const pages = head.readUInt32BE(28);
  const valid = pageSize >= 512 && pages > 0 && head.readUInt32BE(24) === head.readUInt32BE(92) && pages * pageSize === size;
  if (!valid) return 0;
  return Math.ceil(Math.max(MIN_HEADROOM, size * HEADROOM_FRACTION) / pageSize) * pageSize;
}
