// svc files get: streams GET /v1/files/{id} to a file or stdout. A file is written as
// `NAME.<hash>.part` and renamed when whole, so a name in the folder is always a complete download; a `.part` left
// by a cut-off download is resumed with a Range request (If-Range on its ETag, so a different
// file is fetched whole). An existing file is never overwritten without --force.

import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { safeFileName, type OpenedDownload } from '../../../client/files.js';
import { byteProgress, formatBytes } from '../../byte-progress.js';
import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { withClient, type ClientFlags } from '../../with-client.js';

export interface FilesGetFlags extends ClientFlags {
  output?: string;
  force?: boolean;
  as?: string;
}

export function filesGet(io: Io, id: string, flags: FilesGetFlags, stderr: NodeJS.WriteStream = process.stderr): Promise<number> {
  return withClient(
    io,
    'files get',
    flags,
    async (client) => {
      if (flags.output === '-') {
        await client.files.download(id, process.stdout, { end: false });
        return EXIT.ok;
      }
      // The name comes with the answer's headers: open first, then decide where it goes.
      const first = await client.files.open(id);
      const dest = path.resolve(flags.output ?? safeFileName(first.name, id));
      if (!flags.force && fs.existsSync(dest)) {
        first.body.destroy();
        throw new UsageError(`${dest} exists: pass --force to overwrite it, or -o PATH to save elsewhere`);
      }
      // The partial file is named for the content (the ETag is its hash), so a resume only ever
      // continues the same bytes; If-Range guards the same on the server's side.
      const tag = first.etag?.replace(/[^0-9A-Za-z]/g, '').slice(0, 16);
      const partial = tag ? `${dest}.${tag}.part` : `${dest}.part`;
      const had = tag ? partSize(partial) : 0;
      let d = first;
      if (had > 0 && first.etag !== undefined) {
        first.body.destroy();
        d = await client.files.open(id, { start: had, ifRange: first.etag });
      }
      const saved = await save(d, partial, stderr, path.basename(dest));
      fs.renameSync(partial, dest);
      const summary = { file_id: id, path: dest, name: d.name ?? null, content_type: d.contentType, size: saved, resumed_at: d.start };
      if (flags.json) io.out(json(summary));
      else
        io.out(
          `saved ${path.relative(process.cwd(), dest) || dest} (${formatBytes(saved)}${d.start > 0 ? `, resumed at ${formatBytes(d.start)}` : ''})`,
        );
      return EXIT.ok;
    },
    flags.as !== undefined ? { agent: { agent: flags.as, flag: '--as' } } : {},
  );
}

/** The bytes a `.part` file already holds (0 when there is none). */
function partSize(p: string): number {
  try {
    return fs.statSync(p).size;
  } catch {
    return 0;
  }
}

/** Writes the download into `partial` (appending when it resumes) and returns the file's size. */
async function save(d: OpenedDownload, partial: string, stderr: NodeJS.WriteStream, label: string): Promise<number> {
  const out = fs.createWriteStream(partial, { flags: d.start > 0 ? 'a' : 'w', mode: 0o600 });
  const bar = byteProgress(stderr, label, d.size);
  let done = d.start;
  try {
    await pipeline(
      d.body,
      new Transform({
        transform(chunk: Buffer, _e, cb) {
          done += chunk.length;
          bar.update(done, d.size);
          cb(null, chunk);
        },
      }),
      out,
    );
  } finally {
    bar.finish();
  }
  if (d.size !== undefined && done !== d.size)
    throw new Error(`the download was cut short at ${formatBytes(done)} of ${formatBytes(d.size)}; run the command again to resume`);
  return done;
}
