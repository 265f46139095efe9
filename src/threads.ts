// Worker threads, started beside the module that owns their entry. Built (dist/, or the test
// runner's copy, where each .ts has its .js beside it), a thread runs the entry's compiled .js
// sibling. Run from source under tsx (bench tools, `npm run soak`), a thread does not inherit the
// main thread's module hooks, so it registers tsx before its entry.
//
// A background thread (the search index) yields the CPU to the main thread, which answers requests:
// on a host with fewer free cores than busy threads, the main thread waited for a core behind them
// (docs/performance.md, the longest stall). Linux keeps a nice value per thread, and setpriority()
// given a thread's id changes that thread alone; elsewhere `runInBackground` does nothing.

import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/** Starts `entry` (a path relative to `owner`, without extension) as a worker thread. */
export function startThread(owner: string, entry: string, workerData: unknown): Worker {
  if (!owner.endsWith('.ts')) return new Worker(new URL(`${entry}.js`, owner), { workerData });
  const first = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => m.register())`;
  const code = `${first}.then(() => import(${JSON.stringify(new URL(`${entry}.ts`, owner).href)}))`;
  return new Worker(code, { eval: true, workerData });
}

/** How much lower than the process a background thread runs: 10 weighs about a tenth of nice 0 on a contended core. */
export const BACKGROUND_NICE = 10;

/** Lowers the calling thread's priority; false where threads have no priority of their own. */
export function runInBackground(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/thread-self is <pid>/task/<tid>: this thread's id, which Node does not expose.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + BACKGROUND_NICE));
    return true;
  } catch {
    return false;
  }
}
