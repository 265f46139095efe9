// Where svc serve allocates under the ingest load: V8's sampling heap profiler through the
// inspector, counting objects the GC has already collected too (so it shows allocation, not
// retention). Young-generation GC time follows the allocation rate.
//
//   node --import tsx bench/tools/alloc-profile.ts [seconds=5] [--top 40]
//   node --import tsx bench/tools/alloc-profile.ts --broadcast N [--count M] [--promoted] [--top 40]
//   ... [--callers NAME]   also: who called the functions named NAME (their two frames above), by bytes
//   ... [--postgres]       svc on a Postgres store (a throwaway cluster of its own) instead of sqlite
//
// --broadcast N: N ACKing agents attached to the fan-out room, M (default 20) room messages sent
// one at a time, each once all N have it (attach_10k's broadcasts); bytes are per delivery.
// --promoted leaves out what the young generation's collections freed: what survived one and was
// promoted (the old space's garbage, which a reading of resident memory between two full
// collections sees).

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { stopAll } from '../lib/procs.js';
import { PUBLISHER, startSvc } from '../lib/svc.js';
import { startOwnCluster } from '../../test/helpers/pg.js';
import { svcTarget } from '../lib/targets.js';

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

const argv = process.argv.slice(2);
const numberAfter = (flag: string) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : undefined);
const seconds = Number(argv.find((a, i) => /^\d+$/.test(a) && !argv[i - 1]?.startsWith('--')) ?? 5);
const top = numberAfter('--top') ?? 40;
const broadcastTo = numberAfter('--broadcast');
const count = numberAfter('--count') ?? 20;
const promotedOnly = argv.includes('--promoted');
const callersOf = argv.includes('--callers') ? argv[argv.indexOf('--callers') + 1] : undefined;
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-alloc-'));
const agents = Array.from({ length: broadcastTo ?? 0 }, (_, k) => `a${k}`);
const cluster = argv.includes('--postgres') ? await startOwnCluster({ durable: true }) : undefined;
const svc = await startSvc({
  dir,
  ...(cluster ? { postgres: { url: cluster.url, schema: 'alloc' } } : {}),
  rooms: [
    { id: 'ingest', members: [PUBLISHER] },
    { id: 'fanout', members: [PUBLISHER, ...agents] },
  ],
  nodeArgs: ['--inspect=127.0.0.1:0'],
});
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
const pool = broadcastTo ? await t.subscribe('svc-attach', broadcastTo) : undefined;
/** Room messages one at a time, each once every agent has the one before; deliveries made. */
const broadcasts = async (n: number, phase: string): Promise<number> => {
  await pool!.phase(phase);
  for (let i = 0; i < n; i++) {
    await t.publish({ rate: 1000, seconds: 30, inflight: 1, max: 1 }, (_j, at) => `b ${phase} ${i} ${at}`);
    const got = await pool!.waitFor(i + 1, 30_000);
    if (!got.complete) throw new Error(`broadcast ${phase} ${i} did not reach every agent`);
  }
  return n * broadcastTo!;
};
// Warm-up, not counted.
if (pool) await broadcasts(3, 'w');
else await t.ingest(50, 2);
await send('HeapProfiler.enable');
await send('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: !promotedOnly,
});
const per = pool ? await broadcasts(count, 'p') : (await t.ingest(50, seconds)).ok;
const { profile } = (await send('HeapProfiler.stopSampling')) as { profile: { head: SampleNode } };
ws.close();
await pool?.close();
await svc.stop();
await stopAll();
await cluster?.stop();
rmSync(dir, { recursive: true, force: true });

const label = (n: SampleNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
const callers = new Map<string, number>();
let all = 0;
const walk = (n: SampleNode, up: SampleNode[]) => {
  all += n.selfSize;
  self.set(label(n), (self.get(label(n)) ?? 0) + n.selfSize);
  if (n.callFrame.functionName === callersOf && n.selfSize > 0) {
    const by = up.slice(-2).reverse().map(label).join(' <- ');
    callers.set(by, (callers.get(by) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, [...up, n]);
};
walk(profile.head, []);
const unit = pool ? 'delivery' : 'msg';
console.log(
  `${per} ${pool ? 'deliveries' : 'messages'}, ${(all / per).toFixed(0)} bytes sampled per ${unit}${promotedOnly ? ' (promoted only)' : ''}`,
);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${(v / per).toFixed(0).padStart(7)} B/${unit}  ${k}`);
if (callersOf) {
  console.log(`\n${callersOf} called from:`);
  for (const [k, v] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${(v / per).toFixed(0).padStart(7)} B/${unit}  ${k}`);
}
