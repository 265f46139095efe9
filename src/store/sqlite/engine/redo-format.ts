// The layout of a checkpoint's redo file (page-file.ts): header `SVCPAGE1`, page size, page count,
// entry count (u32 big-endian each); per entry the page number, the crc32 of the page and the page;
// trailer `SVCPEND1` and the entry count again. Pure: the file is read and written by page-file.ts.

import { StoreError } from '../../types.js';

const MAGIC = Buffer.from('SVCPAGE1', 'latin1');
const END = Buffer.from('SVCPEND1', 'latin1');
export const HEADER = 20;
/** Bytes before each page in an entry: its number and its checksum. */
export const ENTRY = 8;
export const TRAILER = 12;

/** What a redo file's header says. */
export interface RedoHeader {
  pageSize: number;
  /** Pages in the database: the file is cut to pageCount x pageSize. */
  pageCount: number;
  entries: number;
}

function u32s(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v, 4 * i));
  return b;
}

export function encodeHeader(h: RedoHeader): Buffer {
  return Buffer.concat([MAGIC, u32s(h.pageSize, h.pageCount, h.entries)]);
}

export function encodeTrailer(entries: number): Buffer {
  return Buffer.concat([END, u32s(entries)]);
}

/** The error a damaged redo file gives (it was whole when renamed into place: the disk changed it). */
export function damaged(file: string, why: string): StoreError {
  return new StoreError('corrupt', `${file} is damaged (${why}); it was complete when written, so the disk changed it since`);
}

/** Checks a redo file's header and trailer against its size; throws `damaged` when they disagree. */
export function decodeFrame(file: string, size: number, head: Buffer, tail: Buffer): RedoHeader {
  if (size < HEADER + TRAILER || head.length < HEADER || !head.subarray(0, 8).equals(MAGIC)) throw damaged(file, 'no header');
  const h: RedoHeader = { pageSize: head.readUInt32BE(8), pageCount: head.readUInt32BE(12), entries: head.readUInt32BE(16) };
  if (size !== HEADER + h.entries * (ENTRY + h.pageSize) + TRAILER) throw damaged(file, `${size} bytes for ${h.entries} pages`);
  if (tail.length < TRAILER || !tail.subarray(0, 8).equals(END) || tail.readUInt32BE(8) !== h.entries) throw damaged(file, 'no trailer');
  return h;
}
