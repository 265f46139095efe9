// npm run bench [-- --quick [--smoke]] [--only live,receipts,postgres,history] [--reps N] [--out FILE] [--profile]
//
// Starts everything itself on 127.0.0.1 (svc serve, the baseline, nats-server), runs every
// scenario against each, stops all it started, prints a table and writes bench/results.json
// (and bench/results.md, the table for README.md). Bounded in time: past the size's budget every
// child is killed and what was measured is written with a note.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBaseline } from './lib/baseline-proc.js';
import { ensureNats, natsClient, startNats } from './lib/nats.js';
import { killAll, stopAll } from './lib/procs.js';
import { heading, table, type Results } from './lib/report.js';
import { FULL, QUICK, SMOKE, type Sizes } from './lib/sizes.js';
import { PUBLISHER, ROOT, startSvc } from './lib/svc.js';
import { baselineTarget, crossTarget, natsTarget, svcTarget, type Target } from './lib/targets.js';
import { runFanout, runIngest, runPaced, type FanoutResult, type IngestResult, type PacedResult } from './scenarios/live.js';
import { sql, startOwnCluster } from '../test/helpers/pg.js';
import { runHistory } from './scenarios/history.js';
import type { SubscriberKind } from './subscribers.js';
import { combine, ratios } from './lib/reps.js';

const argv = process.argv.slice(2);
const flag = (f: string) => argv.includes(f);
const opt = (f: string) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : undefined);
const sizes: Sizes = flag('--smoke') ? SMOKE : flag('--quick') ? QUICK : FULL;
const reps = Math.max(1, Math.floor(Number(opt('--reps') ?? sizes.reps)) || sizes.reps);
const budgetSeconds = sizes.budgetSeconds + Math.max(0, reps - sizes.reps) * sizes.repSeconds;
/** Counts added up over repetitions rather than taken as a median. */
const SUMMED = ['errors', 'delivered', 'expected'];
const only = opt('--only')?.split(',');
const wants = (part: string) => !only || only.includes(part);
const outFile = path.resolve(opt('--out') ?? path.join(ROOT, only ? 'bench/results.partial.json' : 'bench/results.json'));
const profileDir = flag('--profile') ? path.join(ROOT, 'bench/profiles') : undefined;

const started = Date.now();
const log = (m: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${m}\n`);

if (!process.env.SVC_BENCH_BIN && !existsSync(path.join(ROOT, 'dist/cli/main.js'))) {
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
  params: {
    ingest_clients: sizes.ingest.clients,
    subscribers: sizes.fanout.subscribers,
    paced_rate: sizes.fanout.rate,
    seconds: sizes.ingest.seconds,
    reps,
  },
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
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  const md = `${heading(results)}\n\n${table(results)}\n`;
  if (!only && !opt('--out')) writeFileSync(path.join(ROOT, 'bench/results.md'), md);
  process.stdout.write(
    `\n${md}\n${results.notes.length ? `Notes:\n${results.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}\nwrote ${path.relative(process.cwd(), outFile)}\n`,
  );
}

function cleanup(): void {
  killAll();
  if (!flag('--keep')) rmSync(tmp, { recursive: true, force: true });
}

const budget = setTimeout(() => {
  note(`the run passed its ${budgetSeconds} s budget; everything still running was stopped`);
  write();
  cleanup();
  process.exit(3);
}, budgetSeconds * 1000);
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

/** NATS, measured once (a reference, not a target): ingest, then fan-out; stopped afterwards. */
async function natsOnce(t: Target): Promise<void> {
  const name = 'nats';
  try {
    log(`${name}: ingest`);
    results.ingest[name] = await step(
      `${name} ingest`,
      () => runIngest(t, sizes, note),
      (m) => noteOn(results.ingest, m),
    );
    log(`${name}: fan-out`);
    const f = await step(
      `${name} fan-out`,
      () => runFanout(t, 'nats', sizes, note),
      (m) => {
        noteOn(results.fanout_paced, m);
        noteOn(results.fanout_max, m);
      },
    );
    results.fanout_paced[name] = f?.paced ?? null;
    results.fanout_max[name] = f?.max ?? null;
  } finally {
    await t.stop();
  }
}

/** Starts a fresh target of one side in a folder of its own (null when it failed to start). */
type Start = () => Promise<Target | null>;

/** Runs `fn` against a freshly started target and stops it afterwards; null when either failed. */
async function onFresh<T>(start: Start, what: string, fn: (t: Target) => Promise<T>, onError: (m: string) => void): Promise<T | null> {
  const t = await start();
  if (!t) return null;
  try {
    return await step(`${t.name} ${what}`, () => fn(t), onError);
  } finally {
    await t.stop();
  }
}

type Runs<T> = { svc: (T | null)[]; baseline: (T | null)[] };

/**
 * `reps` repetitions of one scenario on svc and on the baseline, alternately (svc, baseline, svc,
 * baseline, ...), so a busy moment on the machine lands on both sides of a pair. `record` gets the
 * runs so far after each one, so a run stopped by its budget still writes what it measured.
 */
async function interleaved<T>(
  sides: { svc: Start; baseline: Start },
  what: string,
  fn: (t: Target) => Promise<T>,
  onError: (m: string) => void,
  record: (runs: Runs<T>) => void,
): Promise<void> {
  const runs: Runs<T> = { svc: [], baseline: [] };
  for (let k = 1; k <= reps; k++) {
    for (const side of ['svc', 'baseline'] as const) {
      log(`${side}: ${what}${reps > 1 ? ` (repetition ${k} of ${reps})` : ''}`);
      runs[side].push(await onFresh(sides[side], what, fn, onError));
      record(runs);
    }
  }
}

/** Scenarios 1-3: ingest and fan-out interleaved on svc and the baseline, SSE once on svc. */
async function live(rooms: { id: string; members: string[] }[]): Promise<void> {
  let n = 0;
  const fresh = (name: string) => {
    const dir = path.join(tmp, `${name}-${++n}`);
    mkdirSync(dir);
    return dir;
  };
  const profile = profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {};
  const sides = {
    svc: () => step('svc serve start', async () => svcTarget(await startSvc({ dir: fresh('svc'), rooms, ...profile }))),
    baseline: () => step('baseline start', async () => baselineTarget(await startBaseline(fresh('baseline')))),
  };

  await interleaved(
    sides,
    'ingest',
    (t) => runIngest(t, sizes, note),
    (m) => noteOn(results.ingest, m),
    (runs) => {
      results.ingest.svc = combine(runs.svc, SUMMED);
      results.ingest.baseline = combine(runs.baseline, SUMMED);
      results.ingest.svc_vs_baseline = ratios(runs.svc, runs.baseline, ['rate', 'cpu_us_per_msg', 'p50_ms', 'p99_ms']);
    },
  );

  const kind = (t: Target): SubscriberKind => (t.name === 'svc' ? 'svc-attach' : 'baseline');
  const fanoutError = (m: string) => {
    noteOn(results.fanout_paced, m);
    noteOn(results.fanout_max, m);
  };
  await interleaved(
    sides,
    'fan-out',
    (t) => runFanout(t, kind(t), sizes, note),
    fanoutError,
    (runs) => {
      const paced = { svc: runs.svc.map((f) => f?.paced ?? null), baseline: runs.baseline.map((f) => f?.paced ?? null) };
      const max = { svc: runs.svc.map((f) => f?.max ?? null), baseline: runs.baseline.map((f) => f?.max ?? null) };
      results.fanout_paced.svc = combine(paced.svc, SUMMED);
      results.fanout_paced.baseline = combine(paced.baseline, SUMMED);
      results.fanout_paced.svc_vs_baseline = ratios(paced.svc, paced.baseline, ['p50_ms', 'p99_ms']);
      results.fanout_max.svc = combine(max.svc, SUMMED);
      results.fanout_max.baseline = combine(max.baseline, SUMMED);
      results.fanout_max.svc_vs_baseline = ratios(max.svc, max.baseline, ['deliveries_per_s', 'cpu_us_per_delivery']);
    },
  );

  log('svc: SSE fan-out');
  const s = await onFresh(
    sides.svc,
    'SSE fan-out',
    (t) => runFanout(t, 'svc-sse', sizes, note),
    (m) => noteOn(results.sse_fanout, m),
  );
  results.sse_fanout.svc = s
    ? {
        deliveries_per_s: s.max.deliveries_per_s,
        p50_ms: s.paced.p50_ms,
        p99_ms: s.paced.p99_ms,
        rate: s.paced.rate,
        complete: s.paced.complete && s.max.complete,
      }
    : null;
}

/**
 * The Postgres rows: the ingest scenario on one instance, and paced fan-out with the publisher on
 * one instance and the agents attached to a second on the same schema, each `reps` times (ingest,
 * cross, ingest, ...) on fresh instances and a fresh schema, reported as medians like the sqlite
 * rows they are compared with. The database is a local throwaway cluster with fsync on (as durable
 * as the sqlite store's journal).
 */
async function postgres(fanoutRoom: { id: string; members: string[] }): Promise<void> {
  const cluster = await step(
    'postgres start',
    () => startOwnCluster({ durable: true }),
    (m) => {
      noteOn(results.ingest, m);
      noteOn(results.fanout_paced, m);
    },
  );
  if (!cluster) return;
  const dbPid = postmasterPid(cluster.dataDir);
  const profile = profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {};
  const dbTransactions = async () =>
    Number(
      (await sql(cluster.url, 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()'))[0]?.n,
    );
  const ingests: (IngestResult | null)[] = [];
  const crosses: (PacedResult | null)[] = [];
  try {
    const rooms = [{ id: 'ingest', members: [PUBLISHER] }, fanoutRoom];
    const start = (name: string, schema: string) => {
      const dir = path.join(tmp, name);
      mkdirSync(dir);
      return step(`${name} start`, () => startSvc({ dir, rooms, postgres: { url: cluster.url, schema }, ...profile }));
    };
    for (let k = 1; k <= reps; k++) {
      const rep = reps > 1 ? ` (repetition ${k} of ${reps})` : '';
      const one = await start(`svc-pg-${k}`, `bench_ingest_${k}`);
      if (one) {
        try {
          log(`svc_postgres: ingest${rep}`);
          const t = { ...svcTarget(one, 'svc_postgres'), ...(dbPid ? { dbPid } : {}), dbTransactions };
          ingests.push(
            await step(
              'svc_postgres ingest',
              () => runIngest(t, sizes, note),
              (m) => noteOn(results.ingest, m),
            ),
          );
        } finally {
          await one.stop();
          // The ingest's tables would be vacuumed and analyzed by the database during the next row.
          await sql(cluster.url, `DROP SCHEMA bench_ingest_${k} CASCADE`).catch((err: Error) =>
            note(`dropping the ingest schema failed: ${err.message}`),
          );
        }
      }
      results.ingest.svc_postgres = combine(ingests, SUMMED);
      const pub = await start(`svc-pg-a-${k}`, `bench_cross_${k}`);
      const sub = pub && (await start(`svc-pg-b-${k}`, `bench_cross_${k}`));
      if (pub && sub) {
        log(`svc_postgres_cross: paced fan-out${rep}`);
        const t = { ...crossTarget(pub, sub), ...(dbPid ? { dbPid } : {}), dbTransactions };
        try {
          crosses.push(
            await step(
              'svc_postgres_cross fan-out',
              () => runPaced(t, 'svc-attach', sizes, note),
              (m) => noteOn(results.fanout_paced, m),
            ),
          );
        } finally {
          await t.stop();
        }
      } else await pub?.stop();
      results.fanout_paced.svc_postgres_cross = combine(crosses, SUMMED);
    }
  } finally {
    cluster.destroy();
  }
}

/**
 * The receipts rows: ingest and unpaced fan-out on svc as it ships (receipts on) and on svc with
 * `server.receipts: false`, `reps` times each, alternately (with, without, with, ...), each on a
 * fresh server; reported as medians with the with / without ratio per pair.
 */
async function receiptsCost(rooms: { id: string; members: string[] }[]): Promise<void> {
  let n = 0;
  const start = (receipts: boolean) => () =>
    step(`svc serve start (receipts ${receipts ? 'on' : 'off'})`, async () => {
      const dir = path.join(tmp, `receipts-${receipts ? 'on' : 'off'}-${++n}`);
      mkdirSync(dir);
      return svcTarget(await startSvc({ dir, rooms, receipts }), receipts ? 'svc' : 'svc_no_receipts');
    });
  const sides = { with: start(true), without: start(false) };
  const rc: NonNullable<Results['receipts']> = {
    ingest: { with: null, without: null },
    fanout_max: { with: null, without: null },
  };
  results.receipts = rc;
  const onError = (m: string) => noteOn(rc, m);
  const ingest: { with: (IngestResult | null)[]; without: (IngestResult | null)[] } = { with: [], without: [] };
  const fanout: { with: (FanoutResult['max'] | null)[]; without: (FanoutResult['max'] | null)[] } = { with: [], without: [] };
  for (let k = 1; k <= reps; k++) {
    for (const side of ['with', 'without'] as const) {
      log(`receipts ${side === 'with' ? 'on' : 'off'}: ingest${reps > 1 ? ` (repetition ${k} of ${reps})` : ''}`);
      ingest[side].push(await onFresh(sides[side], 'ingest', (t) => runIngest(t, sizes, note), onError));
      rc.ingest[side] = combine(ingest[side], SUMMED);
    }
    rc.ingest.with_vs_without = ratios(ingest.with, ingest.without, ['rate', 'cpu_us_per_msg', 'p50_ms', 'p99_ms']);
  }
  for (let k = 1; k <= reps; k++) {
    for (const side of ['with', 'without'] as const) {
      log(`receipts ${side === 'with' ? 'on' : 'off'}: fan-out${reps > 1 ? ` (repetition ${k} of ${reps})` : ''}`);
      const f = await onFresh(sides[side], 'fan-out', (t) => runFanout(t, 'svc-attach', sizes, note), onError);
      fanout[side].push(f?.max ?? null);
      rc.fanout_max[side] = combine(fanout[side], SUMMED);
    }
    rc.fanout_max.with_vs_without = ratios(fanout.with, fanout.without, ['deliveries_per_s', 'cpu_us_per_delivery']);
  }
}

/** The pid of a cluster's postmaster (first line of postmaster.pid), when this process started it. */
function postmasterPid(dataDir: string | undefined): number | undefined {
  try {
    const pid = dataDir ? Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) : NaN;
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  log(`size ${sizes.name}; temp folder ${tmp}`);
  const fanoutRoom = { id: 'fanout', members: [PUBLISHER, ...Array.from({ length: sizes.fanout.subscribers }, (_, k) => `a${k}`)] };
  if (wants('live')) {
    await live([{ id: 'ingest', members: [PUBLISHER] }, fanoutRoom]);
  }
  if (wants('live') || wants('receipts')) await receiptsCost([{ id: 'ingest', members: [PUBLISHER] }, fanoutRoom]);
  if (wants('live')) {
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
        if (client) await natsOnce(natsTarget(server, client.nc, client.js));
        else await server.stop();
      }
    }
  }

  if (wants('postgres')) await postgres(fanoutRoom);

  if (wants('history')) {
    const histDir = path.join(tmp, 'history');
    mkdirSync(histDir);
    const h = await step(
      'history',
      () => runHistory(histDir, sizes, log, note),
      (m) => noteOn(results.history, m),
    );
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
    if (results.machine.loadavg_start > 0.5)
      note(`the machine was busy when the run started (load average ${results.machine.loadavg_start}): wall-clock numbers are pessimistic`);
    await stopAll();
    write();
    finished = true;
    cleanup();
    log('done');
  });
