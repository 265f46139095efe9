// Worker threads, started beside the module that owns their entry. Built, a thread runs the entry's
// compiled .js sibling. Run from source (.ts: tests, bench tools), a thread does not inherit the
// main thread's module hooks, so it loads a TypeScript loader before its entry: the one
// SVC_THREAD_LOADER names (the test runner's, which serves its one build of the sources) or else
// tsx, which compiles every module again in every thread (about half a second of CPU each).

import { Worker } from 'node:worker_threads';

/** Starts `entry` (a path relative to `owner`, without extension) as a worker thread. */
export function startThread(owner: string, entry: string, workerData: unknown): Worker {
  if (!owner.endsWith('.ts')) return new Worker(new URL(`${entry}.js`, owner), { workerData });
  const loader = process.env.SVC_THREAD_LOADER;
  const first = loader
    ? `import(${JSON.stringify(loader)}).then((m) => m.registerHooks())`
    : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => m.register())`;
  const code = `${first}.then(() => import(${JSON.stringify(new URL(`${entry}.ts`, owner).href)}))`;
  return new Worker(code, { eval: true, workerData });
}
