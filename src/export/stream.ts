// One export of the running store, as a consistent snapshot while writes go on (#40 part 5):
// - Postgres: the reads of one REPEATABLE READ READ ONLY transaction (store/postgres/snapshot.ts);
// - sqlite: the checkpointed `svc.db`, held unwritten, read by a worker thread (image-worker.ts);
// - memory: read whole without yielding (its reads resolve in the tick they are made, so no write
//   lands in between), then written out.
// `emit` takes each chunk of lines and resolves when the next may come (the response drained).

import { startThread } from '../threads.js';
import type { Store } from '../store/types.js';
import { exportNetwork, type Emit, type ExportOptions } from './export-lines.js';
import type { ImageJob, ImageReply } from './image-worker.js';

export type { Emit, ExportOptions };

/** The options less the time, which is the snapshot's. */
export type ExportRequest = Omit<ExportOptions, 'exported_at'>;

export async function streamExport(store: Store, o: ExportRequest, emit: Emit, signal?: AbortSignal): Promise<void> {
  const at = () => ({ ...o, exported_at: new Date().toISOString() });
  if (!store.snapshot) {
    const chunks: string[] = [];
    await exportNetwork(store, at(), (c) => {
      chunks.push(c);
    });
    for (const c of chunks) {
      signal?.throwIfAborted();
      await emit(c);
    }
    return;
  }
  await store.snapshot(async (s) => {
    if (s.kind === 'reads') {
      await exportNetwork(s.source, at(), async (c) => {
        signal?.throwIfAborted();
        await emit(c);
      });
      return;
    }
    await inWorker({ file: s.file, parts: s.parts, options: at() }, emit, signal);
  });
}

function inWorker(job: ImageJob, emit: Emit, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = startThread(import.meta.url, './image-worker', job);
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      void w.terminate();
      if (err) reject(err);
      else resolve();
    };
    const abort = () => finish(signal?.reason instanceof Error ? signal.reason : new Error('the export was abandoned'));
    signal?.addEventListener('abort', abort);
    if (signal?.aborted) return abort();
    w.on('message', (m: ImageReply) => {
      if ('chunk' in m) {
        Promise.resolve(emit(m.chunk)).then(
          () => {
            if (!settled) w.postMessage('more');
          },
          (err: Error) => finish(err),
        );
      } else if ('done' in m) finish();
      else finish(new Error(m.error));
    });
    w.on('error', (err) => finish(err));
    w.on('exit', (code) => finish(new Error(`the export worker stopped (exit code ${code}) before it finished`)));
  });
}
