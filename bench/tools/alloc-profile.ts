// Where svc serve allocates under the ingest load: V8's sampling heap profiler through the
// inspector, counting objects the GC has already collected too (so it shows allocation, not
// retention). Young-generation GC time follows the allocation rate.
//
//   node --import tsx bench/tools/alloc-profile.ts [seconds=5] [--top 40]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { stopAll } from '../lib/procs.js';
import { PUBLISHER, startSvc } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

const argv = process.argv.slice(2);
const seconds = Number(argv.find((a) => /^\d+$/.test(a)) ?? 5);
const top = Number(argv[argv.indexOf('--top') + 1] || 40);
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-alloc-'));
const svc = await startSvc({ dir, rooms: [{ id: 'ingest', members: [PUBLISHER] }], nodeArgs: ['--inspect=127.0.0.1:0'] });
const url = /ws:\/\/[^\s]+/.exec(svc.output())?.[0];
if (!url) throw new Error(`no inspector URL in:\n${svc.output()}`);
const ws = new WebSocket(url);
await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
let nextId = 1;
const pending = new Map<number, (r: unknown) => void>();
ws.on('message', (d) => {
  const m = JSON.parse(String(d)) as { id?: number; result?: unknown };
  if (m.id !== undefined) pending.get(m.id)?.(m.result);
});
const send = (method: string, params: object = {}) =>
  new Promise<unknown>((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });

const t = svcTarget(svc);
await t.ingest(50, 2); // warm-up, not counted
await send('HeapProfiler.enable');
await send('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const r = await t.ingest(50, seconds);
const { profile } = (await send('HeapProfiler.stopSampling')) as { profile: { head: SampleNode } };
ws.close();
await svc.stop();
await stopAll();
rmSync(dir, { recursive: true, force: true });

const label = (n: SampleNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
let all = 0;
const walk = (n: SampleNode) => {
  all += n.selfSize;
  self.set(label(n), (self.get(label(n)) ?? 0) + n.selfSize);
  for (const c of n.children) walk(c);
};
walk(profile.head);
console.log(`${r.ok} messages, ${(all / r.ok).toFixed(0)} bytes sampled per message`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(v / r.ok).toFixed(0).padStart(7)} B/msg  ${k}`);
