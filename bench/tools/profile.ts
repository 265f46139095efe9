// Profiles svc serve under one load (node --cpu-prof) and prints where its CPU went.
//
//   node --import tsx bench/tools/profile.ts ingest|fanout|sse [seconds] [--no-receipts] [--rate N] [--max-seconds S] [--paced] [--no-prof]
//
// It also prints each thread's CPU (named: V8's platform threads, the search worker and libuv's
// pool are `node`): per message for ingest and --paced (the paced phase alone), as a share of the
// whole run for a fan-out's two phases. --no-prof runs svc without the profiler (its own threads
// take CPU). --no-receipts runs svc with server.receipts: false, to set a profile beside one with
// receipts.
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
import { runFanout, runPaced } from '../scenarios/live.js';
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
  nodeArgs: flag('--no-prof') ? [] : ['--cpu-prof', `--cpu-prof-dir=${prof}`],
  receipts,
});
const t = svcTarget(svc);
const c0 = cpuMs(svc.pid);
const t0 = threadCpuMs(svc.pid!);
/** The CPU (µs) per unit of the load, all threads. */
let per: { us: number; unit: string };
if (what === 'ingest') {
  const r = await t.ingest(50, seconds);
  per = { us: ((cpuMs(svc.pid)! - c0!) * 1000) / r.ok, unit: 'msg' };
  console.log(`ingest ${Math.round(r.rate)}/s`, r.latency.summary(), `cpu ${per.us.toFixed(1)} us/msg`);
} else {
  const sizes = {
    ...QUICK,
    fanout: { subscribers, rate: Number(opt('--rate') ?? 1000), seconds, maxSeconds: Number(opt('--max-seconds') ?? seconds), inflight: 8 },
  };
  const kind = what === 'sse' ? 'svc-sse' : 'svc-attach';
  // --paced: the paced phase alone (its CPU per message is the bench's paced row's).
  const r = flag('--paced')
    ? { paced: await runPaced(t, kind, sizes, (m) => console.log('note', m)) }
    : await runFanout(t, kind, sizes, (m) => console.log('note', m));
  console.log(JSON.stringify(r));
  per = flag('--paced') ? { us: r.paced.cpu_us_per_msg ?? 0, unit: 'paced msg' } : { us: 100, unit: '100 (% of the run)' };
}
// By thread: the main one (its id is the pid), then the rest by share (V8's platform threads: GC
// helpers and compilers; the search worker; the libuv pool's fdatasyncs), as shares of `per`
// (over the whole run, so the fan-out's warm-up is in them too).
const spent = [...threadCpuMs(svc.pid!)].map(([tid, t]) => ({ tid, name: t.name, ms: t.ms - (t0.get(tid)?.ms ?? 0) }));
const all = spent.reduce((n, t) => n + t.ms, 0);
const line = spent
  .map((t) => ({ ...t, us: (per.us * t.ms) / all }))
  .filter((t) => t.us >= per.us / 500)
  .sort((a, b) => Number(b.tid === svc.pid) - Number(a.tid === svc.pid) || b.us - a.us)
  .map((t) => `${t.tid === svc.pid ? 'main' : `${t.name}#${t.tid}`} ${t.us.toFixed(1)}`);
console.log(`cpu by thread, us/${per.unit}: ${line.join(', ')}`);
await svc.stop();

await stopAll();
if (flag('--no-prof')) {
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
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
