// The bench's retention round on its own, on a copy of a store bench/loader.ts filled: `svc serve`
// with `server.retention.max_messages` leaving a tenth of every room expired, the scenario's
// ingest meanwhile, and beside it (`--plain`) the same round without retention. Prints the ingest
// rate, the longest stall, and the longest stall lines (loop-stall.mjs, 200 ms each) with their
// time from start-up, so what stalls can be told from when; `--cpu-prof` keeps svc's CPU profile.
// Runs the built dist (npm run build).
//
//   node --import tsx bench/tools/retention-round.ts --store DIR [--messages 1000000] [--rooms 100] [--seconds 10] [--plain] [--cpu-prof OUT_DIR]

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flag, opt } from '../lib/args.js';
import { PUBLISHER, startSvc, TOKEN } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';

const storeDir = opt('--store');
if (!storeDir) throw new Error('--store DIR is required');
const rooms = Number(opt('--rooms') ?? 100);
const seconds = Number(opt('--seconds') ?? 10);
const plain = flag('--plain');
const prof = opt('--cpu-prof');

const messages = Number(opt('--messages') ?? 1_000_000);
const perRoom = Math.floor(messages / rooms);
const keep = perRoom - Math.floor(perRoom / 10);

const dir = mkdtempSync(path.join(os.tmpdir(), 'retention-round-'));
for (const name of readdirSync(storeDir).filter((n) => n.startsWith('svc.db'))) cpSync(path.join(storeDir, name), path.join(dir, name));

async function purgedSoFar(port: number): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  let n = 0;
  for (const line of (await r.text()).split('\n'))
    if (line.startsWith('svc_retention_purged_messages_total{')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

const t0 = Date.now();
const svc = await startSvc({
  dir,
  rooms: [{ id: 'ingest', members: [PUBLISHER] }],
  checkpointBytes: 16 * 1024 * 1024,
  watchStalls: true,
  ...(plain ? {} : { retention: { max_messages: keep } }),
  ...(prof ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${prof}`] } : {}),
});
try {
  const from = Date.now();
  const ing = await svcTarget(svc).ingest(50, seconds);
  const to = Date.now();
  const stall = await svc.stallMaxMs(from, to);
  const purged = plain ? 0 : await purgedSoFar(svc.port);
  console.log(
    `${plain ? 'plain' : 'purge'}: ingest ${Math.round(ing.rate)}/s, longest stall ${stall} ms, purged ${purged} by the end of the ingest (start-up ${svc.startupMs.toFixed(0)} ms)`,
  );
  const lines = readFileSync(path.join(dir, 'stalls.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ').map(Number) as [number, number])
    .filter(([at]) => at > from && at < to + 200);
  const worst = [...lines].sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log(`  longest lines: ${worst.map(([at, ms]) => `${ms}@${((at - t0) / 1000).toFixed(1)}s`).join(' ')}`);
  const over = (x: number) => lines.filter(([, ms]) => ms > x).length;
  console.log(`  lines: ${lines.length}, over 15 ms: ${over(15)}, over 20: ${over(20)}, over 25: ${over(25)}`);
} finally {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
}
