// The V8 settings every `svc` process gives itself, unless node's command line names its own (an
// operator's choice wins).
//
// How far the old generation may grow past what a full collection left live before the next one.
// Left to itself V8 picks the factor from its collector's speed, up to 4x on a machine with memory
// to spare: a server holding 10,000 attachments then carried 20-31 KB of resident memory an
// attachment after a few broadcasts, most of it garbage waiting for a collection, against 14 with
// the factor at 1.5 (bench/tools/attach-mem.ts); ingest was no slower (bench/tools/ingest.ts, 307
// against 336 us a message: fewer fresh pages to fault in) and the big store's stalls the same
// (big-ingest.ts). docs/performance.md has the runs.
//
// On a host of two cores or fewer, a scavenge (the young generation's collection) runs on the main
// thread alone. V8 splits it over helper threads and the main thread waits for them; with the
// cores busy (the search worker, checkpoints, the clients) the helpers wait for a core, and so
// does the event loop: `perf` (sched_switch) had the main thread blocked 12-41 ms at a time in the
// scavenger's join and in handing it work. A scavenge alone takes a few milliseconds.

import os from 'node:os';
import v8 from 'node:v8';

/** The old generation's growth past its live size before a full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;
/** Hosts with at most this many cores scavenge on the main thread alone. */
const SERIAL_SCAVENGE_MAX_CORES = 2;

/** The V8 flags svc sets for itself on a host of `cores`: each unless `execArgv` names its own. */
export function v8Flags(execArgv: readonly string[], cores: number): string[] {
  const named = (flag: RegExp) => execArgv.some((a) => flag.test(a.replaceAll('_', '-')));
  const flags: string[] = [];
  if (!named(/^--heap-growing-percent\b/)) flags.push(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  if (cores <= SERIAL_SCAVENGE_MAX_CORES && !named(/^--(no-)?(parallel-scavenge|single-threaded-gc|single-threaded)\b/))
    flags.push('--no-parallel-scavenge');
  return flags;
}

/** Sets them on this process (V8 reads both at each collection, so they apply from the next one). */
export function setV8Flags(): void {
  for (const flag of v8Flags(process.execArgv, os.availableParallelism())) v8.setFlagsFromString(flag);
}
