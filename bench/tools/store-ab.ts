// In-process A/B of the sqlite store's write path: this checkout's store and another checkout's,
// opened in turn in one process, each taking the same ingest-shaped writes (one message per
// write, `concurrency` at a time, ids minted as a send without an id has them) until its search
// index is caught up. CPU per message of each round (the process's, worker threads included, and
// the main thread's alone: its event loop's active time), and the longest event-loop delay
// (monitorEventLoopDelay), rounds alternating which goes first; on a shared machine the medians
// (and the minimums) of many short rounds are the figures to compare.
//
//   node --import tsx bench/tools/store-ab.ts OTHER_CHECKOUT [rounds=10] [messages=10000] [concurrency=50]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Store } from '../../src/store/types.js';
import { parseQuery } from '../../src/protocol/search-text.js';
import { median } from '../lib/reps.js';
import { createIngestRoom, writeIngest } from './ingest-writes.js';

const [other, roundsArg, nArg, concArg] = process.argv.slice(2);
if (!other) throw new Error('usage: store-ab.ts OTHER_CHECKOUT [rounds] [messages] [concurrency]');
const rounds = Number(roundsArg ?? 10);
const n = Number(nArg ?? 10000);
const conc = Number(concArg ?? 50);
type Open = (opts: { path: string }) => Promise<Store & { close(): Promise<void> }>;
const builds: [string, Open][] = [
  ['this', (await import('../../src/store/sqlite/index.js')).openSqliteStore as unknown as Open],
  ['other', (await import(path.resolve(other, 'src/store/sqlite/index.ts'))).openSqliteStore as Open],
];
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-store-ab-'));
const text = 'ingest: a room message of ordinary length, about as long as a sentence';

/** The last round's main-thread CPU per message (µs) and longest event-loop delay (ms). */
let main = { us: 0, stallMs: 0 };

async function once(open: Open, file: string): Promise<number> {
  const store = await open({ path: file });
  await createIngestRoom(store);
  // A search first: a search worker's start (sql.js loaded in the thread) is not the writes' cost.
  await store.searchMessages({ terms: parseQuery('sentence')!, scope: { room_ids: ['r'], dm_ids: [] }, limit: 1 });
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  await writeIngest(store, n, conc, text, true);
  // The index caught up (a search drains what is pending), as the idle ticks would have done.
  await store.searchMessages({ terms: parseQuery('sentence')!, scope: { room_ids: ['r'], dm_ids: [] }, limit: 1 });
  const cpu = process.cpuUsage(cpu0);
  main = { us: (performance.eventLoopUtilization(elu0).active * 1000) / n, stallMs: loop.max / 1e6 };
  loop.disable();
  await store.close();
  return (cpu.user + cpu.system) / n;
}

const res: Record<string, number[]> = { this: [], other: [] };
const mains: Record<string, number[]> = { this: [], other: [] };
const stalls: Record<string, number[]> = { this: [], other: [] };
try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    const line: string[] = [];
    for (const [name, open] of order) {
      const us = await once(open, path.join(dir, `${name}-${r}`, 'svc.db'));
      res[name]!.push(us);
      mains[name]!.push(main.us);
      stalls[name]!.push(main.stallMs);
      line.push(`${name} ${us.toFixed(1)} (main thread ${main.us.toFixed(1)}, longest delay ${main.stallMs.toFixed(1)} ms)`);
    }
    console.log(`round ${r + 1}: ${line.join(' | ')} us/msg, load ${os.loadavg()[0]!.toFixed(2)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
for (const [name, xs] of Object.entries(res)) {
  console.log(
    `${name}: median ${median(xs).toFixed(1)} us/msg, min ${Math.min(...xs).toFixed(1)}; main thread median ${median(mains[name]!).toFixed(1)} us/msg; longest delay median ${median(stalls[name]!).toFixed(1)} ms, max ${Math.max(...stalls[name]!).toFixed(1)} ms`,
  );
}
