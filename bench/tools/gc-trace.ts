// svc serve under the ingest load with --trace-gc: CPU per message and the garbage collector's
// main-thread time, by young (scavenge) and old (mark-compact) generation. `--event-buffer N`
// sets server.event_buffer, to see what the SSE replay buffer's retention costs.
//
//   node --import tsx bench/tools/gc-trace.ts [seconds=8] [--event-buffer N]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuMs, stopAll } from '../lib/procs.js';
import { PUBLISHER, startSvc } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';

const argv = process.argv.slice(2);
const seconds = Number(argv.find((a, i) => /^\d+$/.test(a) && argv[i - 1] !== '--event-buffer') ?? 8);
const eventBuffer = argv.includes('--event-buffer') ? Number(argv[argv.indexOf('--event-buffer') + 1]) : undefined;
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-gc-'));
const svc = await startSvc({
  dir,
  rooms: [{ id: 'ingest', members: [PUBLISHER] }],
  nodeArgs: ['--trace-gc'],
  outputChars: 64 << 20, // every trace line of the run, not the last few
  ...(eventBuffer !== undefined ? { eventBuffer } : {}),
});
const t = svcTarget(svc);
await t.ingest(50, 2); // warm-up
const skip = svc.output().split('\n').length;
const c0 = cpuMs(svc.pid)!;
const r = await t.ingest(50, seconds);
const c1 = cpuMs(svc.pid)!;
const lines = svc.output().split('\n').slice(skip);
await svc.stop();
await stopAll();
rmSync(dir, { recursive: true, force: true });

/** Pause plus incremental marking steps, in ms, of the trace lines matching `kind`. */
const ms = (kind: RegExp) =>
  lines
    .filter((l) => kind.test(l))
    .reduce((n, l) => n + Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(l)?.[1] ?? 0) + Number(/\+ ([\d.]+) ms in/.exec(l)?.[1] ?? 0), 0);
const count = (kind: RegExp) => lines.filter((l) => kind.test(l)).length;
console.log(
  `event_buffer ${eventBuffer ?? 'default'}: ${r.ok} messages, ${(((c1 - c0) * 1000) / r.ok).toFixed(1)} us CPU/msg; ` +
    `scavenges ${count(/Scavenge/)} (${ms(/Scavenge/).toFixed(0)} ms), mark-compacts ${count(/Mark-Compact/)} (${ms(/Mark-Compact/).toFixed(0)} ms)`,
);
