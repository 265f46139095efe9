// Worker threads, started beside the module that owns their entry. Built (dist/, or the test
// runner's copy, where each .ts has its .js beside it), a thread runs the entry's compiled .js
// sibling. Run from source under tsx (bench tools, `npm run soak`), a thread does not inherit the
// main thread's module hooks, so it registers tsx before its entry.

import { Worker } from 'node:worker_threads';

/** Starts `entry` (a path relative to `owner`, without extension) as a worker thread. */
export function startThread(owner: string, entry: string, workerData: unknown): Worker {
  if (!owner.endsWith('.ts')) return new Worker(new URL(`${entry}.js`, owner), { workerData });
  const first = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => m.register())`;
  const code = `${first}.then(() => import(${JSON.stringify(new URL(`${entry}.ts`, owner).href)}))`;
  return new Worker(code, { eval: true, workerData });
}
