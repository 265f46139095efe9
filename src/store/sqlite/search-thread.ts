// The one worker thread that keeps the search index of every sqlite store open in this process
// (search-worker.ts); each store talks to it on a port of its own. One thread, not one per store:
// a thread costs a few hundred ms of CPU to start (Node's bootstrap in a new isolate, sql.js), and
// a process that opens stores one after another (svc store copy, a restore, the tests) paid it at
// every open. The thread outlives its last store, unreferenced: it never keeps the process alive.

import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { startThread } from '../../threads.js';
import type { OpenIndex, SearchWorkerData } from './search-worker.js';

/** A store's line to the thread. */
export interface SearchLine {
  readonly port: MessagePort;
  /** Closes the port; the thread has forgotten the store (it answered 'closed', or was told to abandon). */
  release(): void;
}

let thread: Worker | undefined;
/** What each open line is told if the thread dies under it. */
const lost = new Set<(why: string) => void>();

function start(): Worker {
  const t = startThread(import.meta.url, './search-worker', {});
  t.unref();
  const died = (why: string) => {
    if (thread === t) thread = undefined;
    for (const tell of [...lost]) tell(why);
  };
  t.on('error', (err) => died(`search worker failed: ${err.message}`));
  t.on('exit', (code) => died(`search worker exited with ${code}`));
  return t;
}

/** Opens the index of one store in the thread (started on first use); `onLost` if the thread dies. */
export function openSearchLine(data: SearchWorkerData, onLost: (why: string) => void): SearchLine {
  thread ??= start();
  const { port1, port2 } = new MessageChannel();
  thread.postMessage({ port: port2, data } satisfies OpenIndex, [port2]);
  lost.add(onLost);
  return {
    port: port1,
    release: () => {
      lost.delete(onLost);
      port1.close();
    },
  };
}
