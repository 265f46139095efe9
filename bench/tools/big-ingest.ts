// Scenario 5's big-store ingest alone, repeated on fresh copies of one loaded store: closed-loop
// ingest on a store of N messages with a 16 MiB checkpoint threshold, reporting rate, CPU per
// message (svc serve with its checkpoint worker, and its main thread alone), checkpoints in the
// window, svc's longest event-loop stall and its peak resident memory over the database file
// (sampled every 20 ms; `--pages N` reads N history pages first, as scenario 4 does before it).
//
//   node --import tsx bench/tools/big-ingest.ts [messages=1000000] [rounds=2] [seconds=10] [--ab OTHER/bin/svc.js] [--keep DIR]
//     [--profile DIR] [--checkpoint-mib N] [--pages N] [--settle] [--warm S] [--node-args "--trace-gc ..."] [--pauses] [--same-priority]
//     [--ab-node-args "--flag ..."]
//
// --ab-node-args adds node options to the --ab side only (this build unless --ab names another),
// so that rounds alternate between V8 flags.
//
// --settle waits, before the ingest, until svc serve is idle (under 5% of a core over a second):
// the loader leaves every message pending for search, and scenario 4's pages and searches give the
// index upkeep the time to work that backlog off before scenario 5's ingest starts.
//
// --pauses prints, after each round, svc's event-loop stalls over 20 ms (at their start in the round,
// with the collections each held: loop-stall.mjs's detail) and the garbage collector's full
// collections over 10 ms (svc runs with --trace-gc --trace-gc-ignore-scavenger): what a stalled
// round stalled on.
//
// The load comes from a child process under `nice`, as scenario 5's (bench/lib/yielding-ingest.ts);
// --same-priority sends it from this process, at svc's priority, as the bench did until 2026-12-01.
//
// The store is loaded once (bench/loader.ts) into DIR (kept with --keep, reused when present).

import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Conn, getBytes } from '../lib/http.js';
import { cpuMs, mainThreadCpuMs, rssMb, stopAll, untilIdle } from '../lib/procs.js';
import { pausesOf, PUBLISHER, startSvc, type SvcServer, TOKEN } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';
import { yieldingIngest } from '../lib/yielding-ingest.js';
import { ensureLoaded } from '../lib/loaded.js';
import { flag, opt, positional, words } from '../lib/args.js';
import { lastGeneration } from '../scenarios/history.js';

const nums = positional(['--ab', '--ab-node-args', '--keep', '--profile', '--checkpoint-mib', '--pages', '--node-args', '--warm'])
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
/** The checkpoint threshold (scenario 5 uses 16 MiB so that one falls inside the window). */
const checkpointBytes = Number(opt('--checkpoint-mib') ?? 16) * 1024 * 1024;
const [messages = 1_000_000, rounds = 2, seconds = 10] = nums;
const abBin = opt('--ab') && path.resolve(opt('--ab')!);
const abNodeArgs = words('--ab-node-args');
const keep = opt('--keep') && path.resolve(opt('--keep')!);
/** --profile DIR: svc serve runs with --cpu-prof, profiles land in DIR. */
const profile = opt('--profile') && path.resolve(opt('--profile')!);
/** History pages (limit 100, random cursors of the loader's) read before the ingest. */
const pages = Number(opt('--pages') ?? 0);
const settle = flag('--settle');
/** --warm S: an unmeasured ingest of S seconds first, as scenario 5's fresh rounds do (2 s). */
const warm = Number(opt('--warm') ?? 0);
const pauses = flag('--pauses');
/** --same-priority: the load from this process, at svc's priority (the bench's way until 2026-12-01). */
const ingest = (svc: SvcServer, s: number) => (flag('--same-priority') ? svcTarget(svc).ingest(50, s) : yieldingIngest(svc.port, 50, s));
const extraNodeArgs = [...words('--node-args'), ...(pauses ? ['--trace-gc', '--trace-gc-ignore-scavenger'] : [])];
const work = mkdtempSync(path.join(os.tmpdir(), 'svc-big-'));
const source = keep ?? path.join(work, 'source');

ensureLoaded(source, messages);

/** svc's event-loop delay max since the last scrape of /metrics (ms), which the scrape resets. */
async function loopMaxMs(port: number): Promise<number | null> {
  const c = await Conn.open(port);
  try {
    const r = await c.request(getBytes('/metrics', TOKEN));
    if (r.status !== 200) return null;
    const m = /^svc_process_nodejs_eventloop_lag_max_seconds\s+(\S+)/m.exec(r.body.toString());
    return m ? Number(m[1]) * 1000 : null;
  } finally {
    c.close();
  }
}

/** `n` history pages before random cursors of the loader's (fills the page cache as scenario 4 does). */
async function readPages(port: number, cursorsFile: string, n: number): Promise<void> {
  const cursors = JSON.parse(readFileSync(cursorsFile, 'utf8')) as Record<string, string[]>;
  const pool = Object.entries(cursors).flatMap(([room, ids]) => ids.map((id) => ({ room, id })));
  const conn = await Conn.open(port);
  try {
    for (let q = 0; q < n; q++) {
      const c = pool[Math.floor(Math.random() * pool.length)]!;
      const r = await conn.request(getBytes(`/v1/rooms/${c.room}/messages?before=${encodeURIComponent(c.id)}&limit=100`, TOKEN));
      if (r.status !== 200) throw new Error(`history page: ${r.status}`);
    }
  } finally {
    conn.close();
  }
}

try {
  for (let i = 0; i < rounds; i++) {
    const line: string[] = [];
    const builds: [string, string | undefined, string[]][] = [
      ['svc', undefined, []],
      ...(abBin || abNodeArgs.length > 0 ? [['svc-ab', abBin || undefined, abNodeArgs] as [string, string | undefined, string[]]] : []),
    ];
    if (i % 2 === 1) builds.reverse();
    for (const [who, bin, ownArgs] of builds) {
      const dir = path.join(work, `${who}-${i}`);
      cpSync(source, dir, { recursive: true });
      const nodeArgs = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), ...extraNodeArgs, ...ownArgs];
      const svc = await startSvc({
        dir,
        rooms: [{ id: 'ingest', members: [PUBLISHER] }],
        checkpointBytes,
        nodeArgs,
        watchStalls: pauses ? 'detail' : true,
        ...(bin ? { bin } : {}),
      });
      if (pages > 0) await readPages(svc.port, path.join(dir, 'cursors.json'), pages);
      if (settle) line.push(`settled in ${await untilIdle(svc.pid)} s;`);
      if (warm > 0) await ingest(svc, warm);
      const steady = rssMb(svc.pid) ?? 0;
      let peak = steady;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(svc.pid) ?? 0)), 20);
      const gen0 = lastGeneration(path.join(dir, 'svc.db'));
      await loopMaxMs(svc.port);
      const c0 = cpuMs(svc.pid)!;
      const m0 = mainThreadCpuMs(svc.pid)!;
      const from = Date.now();
      const r = await ingest(svc, seconds);
      const stall = await svc.stallMaxMs(from, Date.now());
      const c1 = cpuMs(svc.pid)!;
      const m1 = mainThreadCpuMs(svc.pid)!;
      const loop = await loopMaxMs(svc.port);
      clearInterval(sampler);
      const dbMb = statSync(path.join(dir, 'svc.db')).size / 1048576;
      const l = r.latency.summary();
      const per = (ms: number) => ((ms * 1000) / r.ok).toFixed(0);
      line.push(
        `${who} ${Math.round(r.rate)}/s ${per(c1 - c0)} us/msg (main thread ${per(m1 - m0)}) p99 ${l.p99_ms} max ${l.max_ms} ` +
          `checkpoints ${lastGeneration(path.join(dir, 'svc.db')) - gen0} stall ${stall?.toFixed(1)} ms (metrics' lag max ${loop?.toFixed(1)}) rss ${steady.toFixed(0)} -> peak ${peak.toFixed(0)} MB ` +
          `/ db ${dbMb.toFixed(0)} MB = ${(peak / dbMb).toFixed(3)}x load ${os.loadavg()[0]!.toFixed(1)}`,
      );
      if (pauses) line.push(`\n${pausesOf(svc, from)}\n`);
      await svc.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    process.stderr.write(`round ${i + 1}: ${line.join(' | ')}\n`);
  }
} finally {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
}
