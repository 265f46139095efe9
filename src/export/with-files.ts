// `GET /v1/export?with_files=true` (`svc export --with-files`, #41 part 8): the export with the
// bytes of every file it carries, as `file_blob` lines after the records and before the end line
// (whose counts then include them). The store's lines are written as ever (export-lines.ts, on
// sqlite in a worker); this wraps their `emit`, noting each file record (`files` lines) as it
// passes and holding the end line back until the blobs are out. A blob gone meanwhile (its file
// collected after the snapshot) is left out: its record then downloads as not found, as it would.

import type { Readable } from 'node:stream';
import type { Emit } from './export-lines.js';
import { line } from './format.js';

/** The line type of a blob's piece: `{sha256, n, data}`, `data` its bytes in base64, pieces in order from 0. */
export const FILE_BLOB_TYPE = 'file_blob';
/** Raw bytes per line: about 1 MiB of base64. */
export const BLOB_PIECE = 768 * 1024;

const FILES_LINE = '{"type":"files",';
const END_LINE = '{"type":"end"';

/** Reads a blob's bytes by hash; undefined when it is not kept. */
export type ReadBlob = (sha256: string) => Promise<Readable | undefined>;

/** An `emit` that notes the files the lines carry, and `finish()` writing their blobs and the end line. */
export function withFileBlobs(emit: Emit, read: ReadBlob): { emit: Emit; finish(): Promise<void> } {
  const shas = new Set<string>();
  let end: string | undefined;
  const note = (l: string) => {
    if (!l.startsWith(FILES_LINE)) return;
    const effect = (JSON.parse(l) as { effect?: { op?: string; file?: { sha256?: string } } }).effect;
    if (effect?.op === 'file.put' && typeof effect.file?.sha256 === 'string') shas.add(effect.file.sha256);
  };
  return {
    async emit(chunk) {
      const lines = chunk.slice(0, -1).split('\n');
      for (const l of lines) note(l);
      // The end line is the last line of the last chunk: it waits for the blobs.
      if (lines.at(-1)!.startsWith(END_LINE)) {
        end = lines.pop();
        if (lines.length > 0) await emit(`${lines.join('\n')}\n`);
        return;
      }
      await emit(chunk);
    },
    async finish() {
      if (end === undefined) throw new Error('the export ended without its end line');
      let pieces = 0;
      for (const sha256 of [...shas].sort()) {
        const body = await read(sha256);
        if (!body) continue;
        let n = 0;
        let held = Buffer.alloc(0);
        const out = async (b: Buffer) => {
          await emit(`${line(FILE_BLOB_TYPE, { sha256, n: n++, data: b.toString('base64') })}\n`);
          pieces++;
        };
        for await (const c of body) {
          held = held.length === 0 ? Buffer.from(c) : Buffer.concat([held, c]);
          while (held.length >= BLOB_PIECE) {
            await out(held.subarray(0, BLOB_PIECE));
            held = held.subarray(BLOB_PIECE);
          }
        }
        if (held.length > 0 || n === 0) await out(held);
      }
      const counts = (JSON.parse(end) as { counts: Record<string, number> }).counts;
      if (pieces > 0) counts[FILE_BLOB_TYPE] = pieces;
      await emit(`${line('end', { counts })}\n`);
    },
  };
}
