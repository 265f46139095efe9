// Micro-benchmark of the sqlite store's write path: N single-message batches shaped like
// sendMessage's, awaited in groups of `concurrency` (as concurrent HTTP requests would be).
//
//   node --import tsx bench/tools/store-write.ts [N] [concurrency]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createIngestRoom, writeIngest } from './ingest-writes.js';

const n = Number(process.argv[2] ?? 20000);
const conc = Number(process.argv[3] ?? 50);
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sw-'));
const store = await openSqliteStore({ path: path.join(dir, 'svc.db') });
await createIngestRoom(store);
const cpu0 = process.cpuUsage();
// The longest event-loop stall while writing (index upkeep and checkpoints included).
const stalls = monitorEventLoopDelay({ resolution: 1 });
stalls.enable();
const t0 = performance.now();
await writeIngest(store, n, conc, 'hello there, a message of ordinary length');
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
stalls.disable();
console.log(
  `${n} writes in ${ms.toFixed(0)} ms: ${Math.round((n / ms) * 1000)}/s, main-thread cpu ${((cpu.user + cpu.system) / n).toFixed(1)} us/write, longest stall ${(stalls.max / 1e6).toFixed(1)} ms, p99 stall ${(stalls.percentile(99) / 1e6).toFixed(1)} ms`,
);
await store.close();
rmSync(dir, { recursive: true, force: true });
