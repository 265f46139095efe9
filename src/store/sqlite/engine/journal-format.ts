// The journal's record format, pure: one line per record, `<crc32 hex>\t<json>\n` (JSON never holds
// a raw newline, so a line is a record), built without re-encoding bodies and decoded up to the
// first torn or damaged record. The files and the writer are journal.ts.

import zlib from 'node:zlib';

/** CRC-32 (IEEE, as zlib) of some bytes: zlib's native one (every Node that package.json's engines admit has it). */
export function crc32(bytes: Uint8Array): number {
  return zlib.crc32(bytes) >>> 0;
}

const TAB = 0x09;
const NEWLINE = 0x0a;
const CRC_HEX = 8;

/** Frames one JSON payload as a journal line. */
export function encodeRecord(json: string): Buffer {
  // One buffer: the body is encoded in place after room for the checksum, then the head filled in.
  const len = Buffer.byteLength(json, 'utf8');
  const buf = Buffer.allocUnsafe(CRC_HEX + 1 + len + 1);
  buf.write(json, CRC_HEX + 1, len, 'utf8');
  buf.write(
    crc32(buf.subarray(CRC_HEX + 1, CRC_HEX + 1 + len))
      .toString(16)
      .padStart(CRC_HEX, '0'),
    0,
    CRC_HEX,
    'latin1',
  );
  buf[CRC_HEX] = TAB;
  buf[CRC_HEX + 1 + len] = NEWLINE;
  return buf;
}

/**
 * Builds journal lines from pieces of their JSON in a reused buffer, so each piece is UTF-8
 * encoded once and a body's bytes (a stored row) can be handed on without encoding it again.
 * Short pieces are joined first, so a record costs a few encoder calls. The lines of one turn are
 * built one after the other in the same buffer, so the turn goes to the journal as one write
 * (`take`). A body's bytes are valid until the next piece is added: use them synchronously.
 */
export class FrameBuilder {
  private buf = Buffer.allocUnsafe(INITIAL_BYTES);
  /** Where the line being built starts (its checksum). */
  private lineStart = 0;
  /** End of the bytes written (the finished lines, then the line being built). */
  private at = 0;
  /** End of the finished lines. */
  private end = 0;
  private pending = '';
  /** Lines finished since the last take. */
  records = 0;

  /** Starts a new line after the finished ones (a line started and not finished is dropped). */
  start(): void {
    if (this.end === 0 && this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafe(INITIAL_BYTES);
    this.lineStart = this.end;
    this.at = this.end + CRC_HEX + 1;
    this.pending = '';
  }

  /** Drops the line being built, keeping the finished ones. */
  abandon(): void {
    this.at = this.end;
    this.pending = '';
  }

  /** Appends JSON text. */
  text(piece: string): void {
    this.pending += piece;
  }

  /** Appends a body's JSON; returns the byte offset it starts at (it ends at `offset`). */
  body(json: string): number {
    this.flush();
    const start = this.at;
    this.write(json);
    return start;
  }

  /** Where the bytes written so far end (pending text excluded). */
  get offset(): number {
    return this.at;
  }

  /** The bytes from `start` to `end` (a view: valid until the next piece is added). */
  bytes(start: number, end: number): Buffer {
    return this.buf.subarray(start, end);
  }

  /** Closes the line (checksum, tab, newline) and returns it, exactly as encodeRecord would frame the same JSON. */
  finish(): Buffer {
    this.flush();
    const from = this.lineStart;
    const end = this.at;
    this.buf.write(
      crc32(this.buf.subarray(from + CRC_HEX + 1, end))
        .toString(16)
        .padStart(CRC_HEX, '0'),
      from,
      CRC_HEX,
      'latin1',
    );
    this.buf[from + CRC_HEX] = TAB;
    this.buf[end] = NEWLINE;
    this.at = this.end = end + 1;
    this.records++;
    return this.buf.subarray(from, end + 1);
  }

  /** The finished lines, joined (a view, valid until the next start), and a fresh start for the next turn. */
  take(): { bytes: Buffer; records: number } {
    const out = { bytes: this.buf.subarray(0, this.end), records: this.records };
    this.at = this.end = this.lineStart = 0;
    this.records = 0;
    this.pending = '';
    return out;
  }

  private flush(): void {
    if (this.pending === '') return;
    this.write(this.pending);
    this.pending = '';
  }

  private write(piece: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit; one more byte for the line end.
    const need = this.at + piece.length * 3 + 1;
    if (need > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, this.at);
      this.buf = bigger;
    }
    this.at += this.buf.write(piece, this.at, 'utf8');
  }
}

/** The frame buffer's first size, and the size past which an empty one is given back. */
const INITIAL_BYTES = 64 * 1024;
const KEEP_BYTES = 4 * 1024 * 1024;

export interface Decoded {
  /** Parsed payloads of the leading run of valid records. */
  records: unknown[];
  /** Byte length of that run: where the file should end. */
  validBytes: number;
  /** Why decoding stopped early, when it did (torn or corrupt record at `validBytes`). */
  problem?: string;
}

/** Decodes journal bytes, stopping at the first torn or invalid record. */
export function decodeRecords(buf: Uint8Array): Decoded {
  const records: unknown[] = [];
  let pos = 0;
  const stop = (problem: string): Decoded => ({ records, validBytes: pos, problem });
  while (pos < buf.length) {
    const nl = buf.indexOf(NEWLINE, pos);
    if (nl < 0) return stop(`torn record (${buf.length - pos} bytes without a line end)`);
    if (nl - pos < CRC_HEX + 1 || buf[pos + CRC_HEX] !== TAB) return stop('malformed record line');
    const hex = Buffer.from(buf.subarray(pos, pos + CRC_HEX)).toString('latin1');
    const body = buf.subarray(pos + CRC_HEX + 1, nl);
    if (!/^[0-9a-f]{8}$/.test(hex) || parseInt(hex, 16) !== crc32(body)) return stop('checksum mismatch');
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body).toString('utf8'));
    } catch {
      return stop('record is not JSON');
    }
    records.push(value);
    pos = nl + 1;
  }
  return { records, validBytes: pos };
}
