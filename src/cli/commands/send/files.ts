// `svc send --file`: uploads each file (POST /v1/files, streamed from disk) before the message is
// sent, with a progress bar on a terminal for the large ones, and returns the message's file parts.

import fs from 'node:fs';
import path from 'node:path';
import type { SvcClient } from '../../../client/svc-client.js';
import { filePart, type FilePartBody } from '../../../client/files.js';
import { byteProgress } from '../../byte-progress.js';
import { UsageError } from '../../target.js';

/** Uploads the files in order; a file that cannot be read is a usage error before anything is sent. */
export async function uploadAll(
  client: SvcClient,
  files: readonly string[],
  stderr: NodeJS.WriteStream = process.stderr,
): Promise<FilePartBody[]> {
  for (const f of files) {
    let st: fs.Stats;
    try {
      st = fs.statSync(f);
    } catch (err) {
      throw new UsageError(`--file ${f}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    if (!st.isFile()) throw new UsageError(`--file ${f}: not a regular file`);
  }
  const parts: FilePartBody[] = [];
  for (const f of files) {
    const size = fs.statSync(f).size;
    const bar = byteProgress(stderr, path.basename(f), size);
    try {
      parts.push(filePart(await client.files.uploadFile(f, { onProgress: bar.update })));
    } finally {
      bar.finish();
    }
  }
  return parts;
}
