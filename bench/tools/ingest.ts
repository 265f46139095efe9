// Scenario 1 alone, repeated: svc and the baseline alternately, `rounds` times, one table of CPU
// per message, rate and latency. On a shared machine CPU per message is the figure to compare.
//
//   node --import tsx bench/tools/ingest.ts [rounds=3] [seconds=10] [--svc-only] [--ab OTHER/bin/svc.js]
//     [--ab-node-args "--flag ..."] [--clients N]
//
// --ab adds a second svc build (another checkout's bin/svc.js, built) to every round, so two
// trees are compared under the same machine load; --ab-node-args gives that second svc (this build
// unless --ab names another) node options of its own, to compare V8's flags. --clients (default 50)
// sets the concurrency: with few clients each message is nearly its own group commit, so
// per-message costs vary less with load.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBaseline } from '../lib/baseline-proc.js';
import { stopAll } from '../lib/procs.js';
import { FULL, type Sizes } from '../lib/sizes.js';
import { PUBLISHER, startSvc } from '../lib/svc.js';
import { baselineTarget, svcTarget, type Target } from '../lib/targets.js';
import { runIngest, type IngestResult } from '../scenarios/live.js';
import { flag, opt, positional, words } from '../lib/args.js';

const abNodeArgs = words('--ab-node-args');
const abBin = opt('--ab') === undefined ? undefined : path.resolve(opt('--ab')!);
const ab = abBin !== undefined || abNodeArgs.length > 0;
const clients = opt('--clients') === undefined ? FULL.ingest.clients : Number(opt('--clients'));
const args = positional(['--ab', '--ab-node-args', '--clients']);
const svcOnly = flag('--svc-only');
const rounds = Number(args[0] ?? 3);
const seconds = Number(args[1] ?? 10);
const sizes: Sizes = { ...FULL, ingest: { clients, seconds } };
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ingest-'));
const note = (m: string) => process.stderr.write(`note: ${m}\n`);

/** User and system CPU ticks of a process (for the kernel's share). */
function ticks(pid: number | undefined): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(f[11]), Number(f[12])];
}

const rows: { who: string; r: IngestResult; load: number; sys: number }[] = [];
async function once(who: string, start: () => Promise<Target>): Promise<string> {
  const t = await start();
  try {
    const [u0, s0] = ticks(t.pid);
    const r = await runIngest(t, sizes, note);
    const [u1, s1] = ticks(t.pid);
    const row = { who, r, load: os.loadavg()[0]!, sys: (s1 - s0) / (u1 - u0 + s1 - s0) };
    rows.push(row);
    return `${who} ${r.cpu_us_per_msg} us/msg (${Math.round(row.sys * 100)}% sys) ${r.rate}/s p50 ${r.p50_ms} p99 ${r.p99_ms} load ${row.load.toFixed(2)}`;
  } finally {
    await t.stop();
  }
}

const rooms = [
  { id: 'ingest', members: [PUBLISHER] },
  { id: 'fanout', members: [PUBLISHER] },
];
try {
  for (let i = 0; i < rounds; i++) {
    const d = path.join(dir, `r${i}`);
    for (const sub of ['svc', 'ab', 'base']) mkdirSync(path.join(d, sub), { recursive: true });
    const line: string[] = [];
    // Alternate which build goes first, so a trend in the machine's load favours neither.
    const svcRuns = [
      () => once('svc', async () => svcTarget(await startSvc({ dir: path.join(d, 'svc'), rooms }))),
      ...(ab
        ? [
            () =>
              once('svc-ab', async () => svcTarget(await startSvc({ dir: path.join(d, 'ab'), rooms, bin: abBin, nodeArgs: abNodeArgs }))),
          ]
        : []),
    ];
    if (i % 2 === 1) svcRuns.reverse();
    for (const run of svcRuns) line.push(await run());
    if (!svcOnly) line.push(await once('baseline', async () => baselineTarget(await startBaseline(path.join(d, 'base')))));
    process.stderr.write(`round ${i + 1}: ${line.join(' | ')}\n`);
  }
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
console.log('| who | CPU µs/msg | msgs/s | p50 ms | p99 ms |');
console.log('| --- | --- | --- | --- | --- |');
for (const who of ['svc', 'svc-ab', 'baseline']) {
  const rs = rows.filter((x) => x.who === who).map((x) => x.r);
  if (rs.length === 0) continue;
  const m = (f: (r: IngestResult) => number | null) => median(rs.map((r) => f(r) ?? NaN)).toFixed(1);
  console.log(
    `| ${who} (median of ${rs.length}) | ${m((r) => r.cpu_us_per_msg)} | ${m((r) => r.rate)} | ${m((r) => r.p50_ms)} | ${m((r) => r.p99_ms)} |`,
  );
}
