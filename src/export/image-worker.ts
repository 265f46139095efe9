// Reads an export out of a sqlite database image off the main thread (#40 part 5): the store holds
// its checkpointed `svc.db` unwritten while this runs (Store.snapshot), and this thread opens it with
// its own sql.js, so the store's thread neither stalls on the reads nor keeps a second copy of the
// database. Lines go to the parent a page at a time; the next page is read once the parent asks
// for it (its response took the last one), so a slow reader holds back one page, not the export.

import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { partsNamed } from '../store/concerns.js';
import { loadSql } from '../store/sqlite/engine/image.js';
import { ImageReads } from '../store/sqlite/image-reads.js';
import { emptyImage } from '../store/sqlite/schema.js';
import { exportNetwork, type ExportOptions } from './export-lines.js';

/** What the parent gives the worker. */
export interface ImageJob {
  file: string;
  parts: string[];
  options: ExportOptions;
}

/** What the worker posts: a chunk of lines, then `done` or `error`. */
export type ImageReply = { chunk: string } | { done: true } | { error: string };

async function main(job: ImageJob, port: NonNullable<typeof parentPort>): Promise<void> {
  const SQL = await loadSql();
  const parts = partsNamed(job.parts);
  let image: Uint8Array;
  try {
    image = await fs.promises.readFile(job.file);
  } catch (err) {
    // A store never checkpointed has no `svc.db` yet: it holds nothing a checkpoint would write.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    image = emptyImage(SQL, parts);
  }
  const reads = new ImageReads(SQL, image, parts);
  let more: (() => void) | undefined;
  port.on('message', (m) => {
    if (m === 'more') more?.();
  });
  try {
    await exportNetwork(reads, job.options, (chunk) => {
      const asked = new Promise<void>((resolve) => (more = resolve));
      port.postMessage({ chunk } satisfies ImageReply);
      return asked;
    });
  } finally {
    reads.close();
  }
  port.postMessage({ done: true } satisfies ImageReply);
}

if (parentPort) {
  const port = parentPort;
  main(workerData as ImageJob, port).then(
    () => port.close(),
    (err: unknown) => {
      port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies ImageReply);
      port.close();
    },
  );
}
