// What a checkpoint costs the process it runs in, without HTTP: a store of N messages (loaded once,
// as scenario 5's) takes single-message writes from 50 concurrent writers for S seconds with a
// 16 MiB checkpoint threshold, and each checkpoint in that window is reported with its changed
// pages, its duration, the resident memory it added over the moment it started, and the longest
// event-loop stall seen while it ran (a 1 ms timer's lateness) next to the longest outside it.
// Builds are compared in alternation, each round in fresh processes on fresh copies of the store.
//
//   node --import tsx bench/tools/checkpoint-cost.ts --store DIR [--seconds 10] [--rounds 3] [--ab OTHER_ROOT] [--cpu]
//
// --cpu: a stall is the process's CPU time between two ticks rather than their wall time (on a
// loaded host, wall time carries the run queue).
// DIR holds a loaded store (bench/loader.ts; bench/tools/big-ingest.ts --keep DIR makes one).
// Each build runs from its `dist/` (npm run build); OTHER_ROOT is another tree's root with its own.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { argv, opt } from '../lib/args.js';
import { rssMb } from '../lib/procs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface CheckpointSeen {
  pages: number;
  ms: number;
  /** Resident memory added over the checkpoint's start (MB). */
  rss_added_mb: number;
  /** Longest event-loop stall while it ran (ms). */
  stall_ms: number;
  /** Writes acknowledged while it ran, per second. */
  rate: number;
}

interface ChildResult {
  rate: number;
  rss_start_mb: number;
  rss_peak_mb: number;
  stall_outside_ms: number;
  /** When the longest stall outside checkpoints came, in s from the first write. */
  stall_outside_at_s: number;
  checkpoints: CheckpointSeen[];
}

/** This process's resident memory (MB). */
const ownRssMb = () => rssMb(process.pid) ?? 0;

/** One build, in this process: the writes, the checkpoints and what they cost. */
async function child(root: string, dir: string, seconds: number, cpuStall: boolean): Promise<ChildResult> {
  const mod = (await import(
    pathToFileURL(path.join(root, 'dist/store/sqlite/index.js')).href
  )) as typeof import('../../src/store/sqlite/index.js');
  const ids = (await import(pathToFileURL(path.join(root, 'dist/protocol/ids.js')).href)) as typeof import('../../src/protocol/ids.js');
  const store = await mod.openSqliteStore({ path: path.join(dir, 'svc.db'), checkpointBytes: 16 * 1024 * 1024 });
  // The checkpointer is private; its `running` promise tells when one is under way.
  const ck = (store as unknown as { checkpointer: { running: Promise<void> | undefined } }).checkpointer;
  const pagesNow = () => store.pages?.size ?? 0;
  await store.write([
    {
      op: 'room.create',
      room: { id: 'ingest', name: 'ingest', members: ['pub'], visibility: 'public', write_policy: 'members' },
      at: new Date().toISOString(),
      event: (room: { id: string }) => ({
        id: ids.newId('evt'),
        type: 'room.created',
        network_id: 'bench',
        created_at: new Date().toISOString(),
        room_id: room.id,
      }),
    },
  ] as never);
  // Let the start-up's search upkeep finish, as it does during the scenario's history reads.
  const upkeep = (store as unknown as { upkeep: { work: boolean } }).upkeep;
  for (let w = 0; w < 600 && upkeep.work; w++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  const from = { type: 'agent', id: 'pub', network_id: 'bench', fqid: ids.fqid('bench', 'agents', 'pub') };
  const rssStart = ownRssMb();
  let peak = rssStart;
  let outside = 0;
  let outsideAt = 0;
  let t0 = performance.now();
  const seen: CheckpointSeen[] = [];
  let current: (CheckpointSeen & { t0: number; rss0: number; n0: number }) | undefined;
  let dirtyBefore = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let stop = false;
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    // On a loaded host a turn's wall time carries the run queue: the process's CPU time in the
    // gap (its other threads do little: fsyncs and writes) is the turn's own cost.
    const wallGap = now - last - 1;
    const gap = cpuStall ? (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000 : wallGap;
    lastCpu = cpu;
    last = now;
    const rss = ownRssMb();
    peak = Math.max(peak, rss);
    if (current) {
      current.stall_ms = Math.max(current.stall_ms, gap);
      current.rss_added_mb = Math.max(current.rss_added_mb, rss - current.rss0);
      if (!ck.running) {
        current.ms = now - current.t0;
        current.rate = Math.round(((done - current.n0) * 1000) / current.ms);
        const { t0: _t, rss0: _r, n0: _n, ...c } = current;
        seen.push(c);
        current = undefined;
      }
    } else if (ck.running) {
      current = { pages: dirtyBefore, ms: 0, rss_added_mb: 0, stall_ms: gap, rate: 0, t0: now, rss0: rss, n0: done };
    } else {
      if (gap > outside) outsideAt = (now - t0) / 1000;
      outside = Math.max(outside, gap);
      dirtyBefore = pagesNow();
    }
    if (!stop) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  let n = 0;
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const writer = async () => {
    while (performance.now() < until) {
      const at = new Date().toISOString();
      const message = {
        id: ids.newId('msg'),
        network_id: 'bench',
        target: { kind: 'room', room_id: 'ingest' },
        from,
        parts: [{ kind: 'text', text: `ingest message ${n++}: the quick brown fox jumps over the lazy dog` }],
        mentions: [],
        created_at: at,
      };
      const event = { id: ids.newId('evt'), type: 'message.created', network_id: 'bench', created_at: at, message };
      await store.write([
        { op: 'message.insert', record: { message, conv: 'room:ingest', event_id: event.id }, event, artifacts: [] },
      ] as never);
      done++;
    }
  };
  t0 = performance.now();
  await Promise.all(Array.from({ length: 50 }, writer));
  const rate = done / ((performance.now() - t0) / 1000);
  await ck.running;
  await new Promise((r) => setTimeout(r, 20));
  stop = true;
  await store.close();
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    rate: Math.round(rate),
    rss_start_mb: Math.round(rssStart),
    rss_peak_mb: Math.round(peak),
    stall_outside_ms: round1(outside),
    stall_outside_at_s: round1(outsideAt),
    checkpoints: seen.map((c) => ({ ...c, ms: Math.round(c.ms), rss_added_mb: Math.round(c.rss_added_mb), stall_ms: round1(c.stall_ms) })),
  };
}

if (argv.includes('--child')) {
  const r = await child(opt('--root')!, opt('--dir')!, Number(opt('--seconds') ?? 10), argv.includes('--cpu'));
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

const store = opt('--store');
if (!store) throw new Error('--store DIR (a loaded store) is required');
const seconds = Number(opt('--seconds') ?? 10);
const rounds = Number(opt('--rounds') ?? 3);
const other = opt('--ab') && path.resolve(opt('--ab')!);
const work = mkdtempSync(path.join(os.tmpdir(), 'svc-ckpt-'));
try {
  for (let i = 0; i < rounds; i++) {
    const builds: [string, string][] = [['this', ROOT], ...(other ? [['other', other] as [string, string]] : [])];
    if (i % 2 === 1) builds.reverse();
    for (const [who, root] of builds) {
      const dir = path.join(work, `${who}-${i}`);
      cpSync(path.resolve(store), dir, { recursive: true });
      const out = execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          '--child',
          '--root',
          root,
          '--dir',
          dir,
          '--seconds',
          String(seconds),
          ...(argv.includes('--cpu') ? ['--cpu'] : []),
        ],
        { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 },
      );
      rmSync(dir, { recursive: true, force: true });
      const r = JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
      const cks = r.checkpoints.map((c) => `${c.pages}p ${c.ms}ms +${c.rss_added_mb}MB stall ${c.stall_ms} ${c.rate}/s`).join(', ');
      process.stderr.write(
        `round ${i + 1} ${who}: ${r.rate}/s rss ${r.rss_start_mb} -> ${r.rss_peak_mb} MB, stall outside checkpoints ${r.stall_outside_ms} ms (at ${r.stall_outside_at_s} s); ` +
          `checkpoints: ${cks || 'none'} (load ${os.loadavg()[0]!.toFixed(1)})\n`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
