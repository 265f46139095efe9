// Profiles svc serve under one load (node --cpu-prof) and prints where its CPU went.
//
//   node --import tsx bench/tools/profile.ts ingest|fanout|sse [seconds] [--no-receipts] [--rate N] [--max-seconds S]
//
// Ingest also prints each thread's CPU per message. --no-receipts runs svc with server.receipts:
// false, to set a profile beside one with receipts.
// --rate sets the fan-out's paced rate (1,000/s unless given: the bench's is a share of the host),
// --max-seconds the length of its unpaced phase (the paced one's unless given).

import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { cpuMs, stopAll, threadCpuMs } from '../lib/procs.js';
import { PUBLISHER, ROOT, startSvc } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';
import { QUICK } from '../lib/sizes.js';
import { runFanout } from '../scenarios/live.js';
import { flag, opt, positional } from '../lib/args.js';

const args = positional(['--rate', '--max-seconds']);
const receipts = !flag('--no-receipts');
const what = args[0] ?? 'ingest';
const seconds = Number(args[1] ?? 5);
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-prof-'));
const prof = path.join(dir, 'prof');
mkdirSync(prof);
const subscribers = 100;
const svc = await startSvc({
  dir,
  rooms: [
    { id: 'ingest', members: [PUBLISHER] },
    { id: 'fanout', members: [PUBLISHER, ...Array.from({ length: subscribers }, (_, k) => `a${k}`)] },
  ],
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${prof}`],
  receipts,
});
const t = svcTarget(svc);
const c0 = cpuMs(svc.pid);
if (what === 'ingest') {
  const t0 = threadCpuMs(svc.pid!);
  const r = await t.ingest(50, seconds);
  console.log(`ingest ${Math.round(r.rate)}/s`, r.latency.summary(), `cpu ${(((cpuMs(svc.pid)! - c0!) * 1000) / r.ok).toFixed(1)} us/msg`);
  // By thread: the main one (its id is the pid), then the rest by share (GC helpers, the search
  // worker, the libuv pool's fdatasyncs).
  const spent = [...threadCpuMs(svc.pid!)].map(([tid, ms]) => [tid, ((ms - (t0.get(tid) ?? 0)) * 1000) / r.ok] as const);
  const line = spent
    .filter(([, us]) => us >= 0.5)
    .sort((a, b) => Number(b[0] === svc.pid) - Number(a[0] === svc.pid) || b[1] - a[1])
    .map(([tid, us]) => `${tid === svc.pid ? 'main' : tid} ${us.toFixed(1)}`);
  console.log(`cpu by thread, us/msg: ${line.join(', ')}`);
} else {
  const sizes = {
    ...QUICK,
    fanout: { subscribers, rate: Number(opt('--rate') ?? 1000), seconds, maxSeconds: Number(opt('--max-seconds') ?? seconds), inflight: 8 },
  };
  const r = await runFanout(t, what === 'sse' ? 'svc-sse' : 'svc-attach', sizes, (m) => console.log('note', m));
  console.log(JSON.stringify(r));
}
await svc.stop();
await stopAll();
const file = readdirSync(prof).find((f) => f.endsWith('.cpuprofile'))!;
console.log(
  execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/tools/profile-summary.ts'), path.join(prof, file), '--top', '40'],
    { encoding: 'utf8' },
  ),
);
// Keep the profile for a closer look (chrome://inspect or profile-summary.ts --match).
const kept = path.join(ROOT, 'bench/profiles');
mkdirSync(kept, { recursive: true });
const name = `${what}${receipts ? '' : '-no-receipts'}.cpuprofile`;
renameSync(path.join(prof, file), path.join(kept, name));
console.log(`profile: bench/profiles/${name}`);
rmSync(dir, { recursive: true, force: true });
