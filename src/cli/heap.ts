// How far V8's old generation may grow past what a full collection left live before the next one,
// for every `svc` process. Left to itself V8 picks the factor from its collector's speed, up to 4x
// on a machine with memory to spare: a server holding 10,000 attachments then carried 20-31 KB of
// resident memory an attachment after a few broadcasts, most of it garbage waiting for a
// collection, against 14 with the factor at 1.5 (bench/tools/attach-mem.ts); ingest was no slower
// (bench/tools/ingest.ts, 307 against 336 us a message: fewer fresh pages to fault in) and the
// big store's stalls the same (big-ingest.ts). docs/performance.md has the runs.

import v8 from 'node:v8';

/** The old generation's growth past its live size before a full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;

/** The V8 flag svc sets for itself: none when node's command line names its own (an operator's choice wins). */
export function heapFlag(execArgv: readonly string[]): string | undefined {
  const own = execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a));
  return own ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Sets the growth limit on this process (V8 reads it at each full collection, so it applies from the next one). */
export function keepHeapNearLive(): void {
  const flag = heapFlag(process.execArgv);
  if (flag) v8.setFlagsFromString(flag);
}
