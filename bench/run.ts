// npm run bench [-- --quick [--smoke]] [--only live,postgres,history] [--out FILE] [--profile]
//
// Starts everything itself on 127.0.0.1 (svc serve, the baseline, nats-server), runs every
// scenario against each, stops all it started, prints a table and writes bench/results.json
// (and bench/results.md, the table for README.md). Bounded in time: past the size's budget every
// child is killed and what was measured is written with a note.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBaseline } from './lib/baseline-proc.js';
import { ensureNats, natsClient, startNats } from './lib/nats.js';
import { killAll, stopAll } from './lib/procs.js';
import { heading, table, type Results } from './lib/report.js';
import { FULL, QUICK, SMOKE, type Sizes } from './lib/sizes.js';
import { PUBLISHER, ROOT, startSvc } from './lib/svc.js';
import { baselineTarget, crossTarget, natsTarget, svcTarget, type Target, type TargetName } from './lib/targets.js';
import { runFanout, runIngest, runPaced } from './scenarios/live.js';
import { startOwnCluster } from '../test/helpers/pg.js';
import { runHistory } from './scenarios/history.js';

const argv = process.argv.slice(2);
const flag = (f: string) => argv.includes(f);
const opt = (f: string) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : undefined);
const sizes: Sizes = flag('--smoke') ? SMOKE : flag('--quick') ? QUICK : FULL;
const only = opt('--only')?.split(',');
const wants = (part: string) => !only || only.includes(part);
const outFile = path.resolve(opt('--out') ?? path.join(ROOT, only ? 'bench/results.partial.json' : 'bench/results.json'));
const profileDir = flag('--profile') ? path.join(ROOT, 'bench/profiles') : undefined;

const started = Date.now();
const log = (m: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${m}\n`);

if (!existsSync(path.join(ROOT, 'dist/cli/main.js'))) {
  process.stderr.write('bench: dist/ is missing; run `npm run build` first (npm run bench does)\n');
  process.exit(2);
}

const cpu = os.cpus()[0]?.model?.trim();
const results: Results = {
  date: new Date().toISOString(),
  machine: {
    cores: os.cpus().length,
    memory_gb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    ...(cpu ? { cpu } : {}),
    // Other work on the machine skews every wall-clock number; the CPU-per-message figures less so.
    loadavg_start: Math.round(os.loadavg()[0]! * 100) / 100,
  },
  size: sizes.name,
  params: { ingest_clients: sizes.ingest.clients, subscribers: sizes.fanout.subscribers, paced_rate: sizes.fanout.rate, seconds: sizes.ingest.seconds },
  ingest: { svc: null, baseline: null, nats: null },
  fanout_paced: { svc: null, baseline: null, nats: null },
  fanout_max: { svc: null, baseline: null, nats: null },
  sse_fanout: { svc: null },
  history: { svc: null },
  write_cost_ratio: { svc: null },
  references: {},
  notes: [],
};
const note = (m: string) => {
  log(`note: ${m}`);
  results.notes.push(m);
};
/** Adds a note to a scenario's result object (its `note` field). */
const noteOn = (section: { note?: string }, m: string) => {
  section.note = section.note ? `${section.note}; ${m}` : m;
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
let finished = false;

function write(): void {
  writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
  const md = `${heading(results)}\n\n${table(results)}\n`;
  if (!only && !opt('--out')) writeFileSync(path.join(ROOT, 'bench/results.md'), md);
  process.stdout.write(`\n${md}\n${results.notes.length ? `Notes:\n${results.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}\nwrote ${path.relative(process.cwd(), outFile)}\n`);
}

function cleanup(): void {
  killAll();
  if (!flag('--keep')) rmSync(tmp, { recursive: true, force: true });
}

const budget = setTimeout(() => {
  note(`the run passed its ${sizes.budgetSeconds} s budget; everything still running was stopped`);
  write();
  cleanup();
  process.exit(3);
}, sizes.budgetSeconds * 1000);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}
process.on('exit', () => {
  if (!finished) killAll();
});

/** Runs one scenario step, turning a failure into a note instead of ending the run. */
async function step<T>(what: string, fn: () => Promise<T>, onError?: (msg: string) => void): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    const full = String((err as Error)?.message ?? err);
    const msg = `${what} failed: ${full.split('\n')[0]}`;
    if (full.includes('\n')) log(full);
    note(msg);
    onError?.(msg);
    return null;
  }
}

/** Scenarios 1-3 against one target; the target is stopped afterwards. */
async function live(t: Target): Promise<void> {
  // live() runs the three systems only; the Postgres rows have their own function.
  const name = t.name as TargetName;
  try {
    log(`${name}: ingest`);
    results.ingest[name] = await step(`${name} ingest`, () => runIngest(t, sizes, note), (m) => noteOn(results.ingest, m));
    log(`${name}: fan-out`);
    const kind = name === 'svc' ? 'svc-attach' : name;
    const f = await step(`${name} fan-out`, () => runFanout(t, kind, sizes, note), (m) => {
      noteOn(results.fanout_paced, m);
      noteOn(results.fanout_max, m);
    });
    results.fanout_paced[name] = f?.paced ?? null;
    results.fanout_max[name] = f?.max ?? null;
    if (name === 'svc') {
      log('svc: SSE fan-out');
      const s = await step('svc SSE fan-out', () => runFanout(t, 'svc-sse', sizes, note), (m) => noteOn(results.sse_fanout, m));
      results.sse_fanout.svc = s ? { deliveries_per_s: s.max.deliveries_per_s, p50_ms: s.paced.p50_ms, p99_ms: s.paced.p99_ms, rate: s.paced.rate, complete: s.paced.complete && s.max.complete } : null;
    }
  } finally {
    await t.stop();
  }
}

/**
 * The Postgres rows: the ingest scenario on one instance, and paced fan-out with the publisher on
 * one instance and the agents attached to a second on the same schema. The database is a local
 * throwaway cluster with fsync on (as durable as the sqlite store's journal).
 */
async function postgres(fanoutRoom: { id: string; members: string[] }): Promise<void> {
  const cluster = await step('postgres start', () => startOwnCluster({ durable: true }), (m) => {
    noteOn(results.ingest, m);
    noteOn(results.fanout_paced, m);
  });
  if (!cluster) return;
  try {
    const rooms = [{ id: 'ingest', members: [PUBLISHER] }, fanoutRoom];
    const start = (name: string, schema: string) => {
      const dir = path.join(tmp, name);
      mkdirSync(dir);
      return step(`${name} start`, () => startSvc({ dir, rooms, postgres: { url: cluster.url, schema } }));
    };
    const one = await start('svc-pg', 'bench_ingest');
    if (one) {
      try {
        log('svc_postgres: ingest');
        results.ingest.svc_postgres = await step('svc_postgres ingest', () => runIngest(svcTarget(one, 'svc_postgres'), sizes, note), (m) => noteOn(results.ingest, m));
      } finally {
        await one.stop();
      }
    }
    const pub = await start('svc-pg-a', 'bench_cross');
    const sub = pub && (await start('svc-pg-b', 'bench_cross'));
    if (pub && sub) {
      log('svc_postgres_cross: paced fan-out');
      const t = crossTarget(pub, sub);
      try {
        results.fanout_paced.svc_postgres_cross = await step('svc_postgres_cross fan-out', () => runPaced(t, 'svc-attach', sizes, note), (m) => noteOn(results.fanout_paced, m));
      } finally {
        await t.stop();
      }
    } else await pub?.stop();
  } finally {
    cluster.destroy();
  }
}

async function main(): Promise<void> {
  log(`size ${sizes.name}; temp folder ${tmp}`);
  const fanoutRoom = { id: 'fanout', members: [PUBLISHER, ...Array.from({ length: sizes.fanout.subscribers }, (_, k) => `a${k}`)] };
  if (wants('live')) {
    const svcDir = path.join(tmp, 'svc');
    mkdirSync(svcDir);
    const svc = await step('svc serve start', () =>
      startSvc({ dir: svcDir, rooms: [{ id: 'ingest', members: [PUBLISHER] }, fanoutRoom], ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}) }),
    );
    if (svc) await live(svcTarget(svc));

    const baseDir = path.join(tmp, 'baseline');
    mkdirSync(baseDir);
    const base = await step('baseline start', () => startBaseline(baseDir));
    if (base) await live(baselineTarget(base));

    const nats = ensureNats({ install: sizes.installNats });
    if ('note' in nats) {
      results.references.nats_note = nats.note;
      for (const s of [results.ingest, results.fanout_paced, results.fanout_max]) noteOn(s, `nats: ${nats.note}`);
      log(`nats: skipped (${nats.note})`);
    } else {
      const natsDir = path.join(tmp, 'nats');
      mkdirSync(natsDir);
      const server = await step('nats-server start', () => startNats(nats.bin, natsDir));
      if (server) {
        results.references.nats_version = server.version;
        const client = await step('nats client', () => natsClient(server.port));
        if (client) await live(natsTarget(server, client.nc, client.js));
        else await server.stop();
      }
    }
  }

  if (wants('postgres')) await postgres(fanoutRoom);

  if (wants('history')) {
    const histDir = path.join(tmp, 'history');
    mkdirSync(histDir);
    const h = await step('history', () => runHistory(histDir, sizes, log, note), (m) => noteOn(results.history, m));
    results.history.svc = h;
    const empty = results.ingest.svc?.rate;
    if (h && empty) results.write_cost_ratio.svc = Math.round((h.ingest_rate / empty) * 100) / 100;
    else noteOn(results.write_cost_ratio, h ? 'no empty-store ingest rate in this run' : 'the big-store run failed');
  }
}

main()
  .catch((err: unknown) => note(`run failed: ${String((err as Error)?.stack ?? err)}`))
  .finally(async () => {
    clearTimeout(budget);
    results.machine.loadavg_end = Math.round(os.loadavg()[0]! * 100) / 100;
    if (results.machine.loadavg_start > 0.5) note(`the machine was busy when the run started (load average ${results.machine.loadavg_start}): wall-clock numbers are pessimistic`);
    await stopAll();
    write();
    finished = true;
    cleanup();
    log('done');
  });
