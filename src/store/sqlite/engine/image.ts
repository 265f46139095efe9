// The database file: loading sql.js, reading an image with headroom, and writing files safely
// (temp file, fsync, rename, fsync of the directory) for checkpoints and recovery alike.

import buffer from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { instantiateWithHook, probeTracking } from './page-hook.js';
import { recoverPages } from './page-file.js';
import type { EngineReport } from '../../types.js';

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

/** The engine's mode for operators (/readyz, svc doctor), with why page tracking is off when it is. */
export function engineReport(tracking: boolean, onDemand: boolean, turnedOff: boolean): EngineReport {
  if (tracking) return { page_tracking: true, on_demand_reads: onDemand };
  return {
    page_tracking: false,
    on_demand_reads: false,
    problem: turnedOff ? 'turned off by the caller' : (trackingProblem ?? 'no page tracking'),
  };
}

/** Free space given to an opened database image: a quarter of its size, at least 16 MiB. */
const HEADROOM_FRACTION = 0.25;
const MIN_HEADROOM = 16 * 1024 * 1024;

/** The database file as sql.js is given it: `data` is the in-memory file, `size` the bytes on disk. */
export type OpenedImage =
  /** Read whole, followed by zeroed headroom (no page tracking, or a header without an exact count). */
  | { kind: 'loaded'; data: Buffer; size: number; pageSize: number }
  /**
   * Opened for reads on demand (page-hook.ts): `data` is zeros, and untouched pages cost no memory,
   * so the headroom is generous (1 GiB, or the database's size).
   */
  | { kind: 'lazy'; data: Buffer; size: number; pageSize: number; fd: number };

/** Headroom of a file opened on demand: growth past it costs one copy of the whole in-memory file. */
const LAZY_MIN_HEADROOM = 1024 * 1024 * 1024;

/**
 * Opens the database file (undefined when there is none), after finishing a checkpoint a crash
 * interrupted. `onDemand`: read pages when sqlite asks for them, where the header gives an exact
 * page count; otherwise the file is read whole. sql.js keeps the file in a typed array that grows
 * by 12.5% with a copy of the whole file (two seconds of stall at a million messages); SQLite trusts
 * the page count in a valid header, so new pages land in the headroom and the array is not copied
 * until it is used up. Only a file whose header count is valid and exact gets headroom.
 */
export async function openImage(file: string, onDemand: boolean): Promise<OpenedImage | undefined> {
  await recoverPages(file);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let keep = false;
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(100);
    if (size >= 100) fs.readSync(fd, head, 0, 100, 0);
    const headroom = headroomFor(head, size);
    const pageSize = pageSizeOf(head);
    if (onDemand && headroom > 0) {
      keep = true;
      return { kind: 'lazy', fd, size, pageSize, data: Buffer.alloc(lazyCapacity(size, pageSize)) };
    }
    const data = Buffer.alloc(size + headroom);
    let at = 0;
    while (at < size) {
      const n = fs.readSync(fd, data, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return { kind: 'loaded', data, size: at, pageSize };
  } finally {
    if (!keep) fs.closeSync(fd);
  }
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
export function newImage(image: Uint8Array): Buffer {
  const data = Buffer.alloc(lazyCapacity(image.length, pageSizeOf(image)));
  data.set(image, 0);
  return data;
}

/** The page size a database header gives (sqlite's default when there is no header yet). */
export function pageSizeOf(head: Uint8Array): number {
  if (head.length < 100) return 4096;
  const v = (head[16]! << 8) | head[17]!;
  return v === 1 ? 65536 : v;
}

/** Bytes of headroom for a database file of `size` bytes with this header (0: not padded). */
export function headroomFor(head: Buffer, size: number): number {
  if (size < 100 || head.length < 100) return 0;
  const pageSize = pageSizeOf(head);
  const pages = head.readUInt32BE(28);
  const valid = pageSize >= 512 && pages > 0 && head.readUInt32BE(24) === head.readUInt32BE(92) && pages * pageSize === size;
  if (!valid) return 0;
  return Math.ceil(Math.max(MIN_HEADROOM, size * HEADROOM_FRACTION) / pageSize) * pageSize;
}
