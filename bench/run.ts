// npm run bench [-- --quick [--smoke]] [--only live,receipts,attach,postgres,scaling,wake,history,files] [--reps N] [--rate N] [--out FILE] [--profile]
//
// Starts everything itself on 127.0.0.1 (svc serve, the baseline, nats-server), runs every
// scenario against each, stops all it started, prints a table and writes bench/results.json
// (and bench/results.md, the table, which it also writes into docs/performance.md). Bounded in time: past the size's budget
// every child is killed and what was measured is written with a note. A scenario that fails to run
// fails the run (exit code 1) after everything else has run and been written.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBaseline } from './lib/baseline-proc.js';
import { ensureNats, natsClient, startNats } from './lib/nats.js';
import { killAll, stopAll } from './lib/procs.js';
import { heading, type Results } from './lib/report.js';
import { table, verdicts } from './lib/table.js';
import { writeDocTable } from './lib/doc-table.js';
import { FULL, QUICK, SMOKE, type Sizes } from './lib/sizes.js';
import { defaultNodeArgs, PUBLISHER, ROOT, startSvc } from './lib/svc.js';
import { baselineTarget, natsTarget, svcTarget, type Target } from './lib/targets.js';
import { runFanout, runIngest, runUnpaced } from './scenarios/live.js';
import { runHistory } from './scenarios/history.js';
import { runAttach } from './scenarios/attach.js';
import { runPostgres } from './scenarios/postgres.js';
import { runReceipts } from './scenarios/receipts.js';
import { runScaling } from './scenarios/scaling.js';
import { runWake } from './scenarios/wake.js';
import { runFiles } from './scenarios/files.js';
import { markSaturation, pacedRate, withPacedRate } from './scenarios/paced-rate.js';
import type { SubscriberKind } from './subscribers.js';
import { combine, ratios } from './lib/reps.js';
import { type RunContext, type Start, SUMMED } from './lib/run-context.js';
import { flag, opt } from './lib/args.js';

const sizes: Sizes = flag('--smoke') ? SMOKE : flag('--quick') ? QUICK : FULL;
const reps = Math.max(1, Math.floor(Number(opt('--reps') ?? sizes.reps)) || sizes.reps);
const budgetSeconds = sizes.budgetSeconds + Math.max(0, reps - sizes.reps) * sizes.repSeconds;
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
    attachments: sizes.attach.n,
    seconds: sizes.ingest.seconds,
    reps,
  },
  ingest: { svc: null, baseline: null, nats: null },
  search: { index_lag_p99_ms: null, index_lag_max_ms: null },
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
/** Steps that failed to run: any fails the run. */
const failures: string[] = [];

function write(): void {
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  const rows = table(results);
  const md = `${heading(results)}\n\n${rows}\n`;
  if (!only && !opt('--out')) {
    writeFileSync(path.join(ROOT, 'bench/results.md'), md);
    writeDocTable(ROOT, md);
  }
  const v = verdicts(rows);
  process.stdout.write(
    `\n${md}\n${results.notes.length ? `Notes:\n${results.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}\ntargets: ${v.met} met, ${v.missed} missed, ${v.saturated} saturated, ${v['—']} not measured\n${failures.length ? `FAILED to run: ${failures.join('; ')}\n` : ''}wrote ${path.relative(process.cwd(), outFile)}\n`,
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
    failures.push(msg);
    onError?.(msg);
    return null;
  }
}

/** NATS, measured once (a reference, not a target): ingest, then fan-out; stopped afterwards. */
async function natsOnce(t: Target, paced: Sizes): Promise<void> {
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
      () => runFanout(t, 'nats', paced, note),
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

/**
 * The smoke run's servers by the function that starts them: a later phase of the same side runs on
 * the one kept (the smoke run checks the harness and the results' shape, and a server's start was
 * most of a smoke phase's cost); a measuring run starts every phase on a fresh one.
 */
const kept = new Map<Start, Target>();

/** Runs `fn` against a freshly started target and stops it afterwards; null when either failed. */
async function onFresh<T>(start: Start, what: string, fn: (t: Target) => Promise<T>, onError: (m: string) => void): Promise<T | null> {
  const keep = sizes === SMOKE;
  const t = (keep ? kept.get(start) : undefined) ?? (await start());
  if (!t) return null;
  if (keep) kept.set(start, t);
  try {
    return await step(`${t.name} ${what}`, () => fn(t), onError);
  } finally {
    if (!keep) await t.stop();
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

let fresh = 0;
/** A new folder of the run's for one server. */
const freshDir = (name: string) => {
  const dir = path.join(tmp, `${name}-${++fresh}`);
  mkdirSync(dir);
  return dir;
};
// Every scenario's servers get it (bench/lib/svc.ts).
if (profileDir) defaultNodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);

/** Fresh svc and baseline servers with the given rooms. */
function liveSides(rooms: { id: string; members: string[] }[]): { svc: Start; baseline: Start } {
  return {
    svc: () => step('svc serve start', async () => svcTarget(await startSvc({ dir: freshDir('svc'), rooms }))),
    baseline: () => step('baseline start', async () => baselineTarget(await startBaseline(freshDir('baseline')))),
  };
}

/**
 * The run's paced rate: the baseline's unpaced fan-out, once, on a fresh baseline with the fan-out's
 * subscribers; PACED_SHARE of its messages/s (the size's fixed rate, with a note, when it fails;
 * `--rate N` gives it instead, to compare two builds at one rate).
 */
async function calibrate(rooms: { id: string; members: string[] }[]): Promise<Sizes> {
  const given = Math.max(0, Number(opt('--rate')) || 0);
  if (!given) log('baseline: unpaced fan-out, for the paced rate');
  const max = given
    ? null
    : await onFresh(
        liveSides(rooms).baseline,
        'unpaced fan-out (paced rate)',
        (t) => runUnpaced(t, 'baseline', sizes, note),
        (m) => noteOn(results.fanout_paced, m),
      );
  const pr = pacedRate(max, sizes.fanout.subscribers, given || sizes.fanout.rate);
  if (pr.baseline_unpaced_msgs_per_s === null) note(`the baseline's unpaced rate was not measured: paced rows at the fixed ${pr.rate}/s`);
  results.params.paced_rate = pr.rate;
  results.params.paced_share = pr.share;
  results.params.baseline_unpaced_msgs_per_s = pr.baseline_unpaced_msgs_per_s;
  log(`paced rate: ${pr.rate}/s`);
  return withPacedRate(sizes, pr.rate);
}

/** Scenarios 1-3: ingest and fan-out interleaved on svc and the baseline, SSE once on svc; `paced` has the run's paced rate. */
async function live(rooms: { id: string; members: string[] }[], paced: Sizes): Promise<void> {
  const sides = liveSides(rooms);

  await interleaved(
    sides,
    'ingest',
    (t) => runIngest(t, sizes, note),
    (m) => noteOn(results.ingest, m),
    (runs) => {
      results.ingest.svc = combine(runs.svc, SUMMED);
      results.ingest.baseline = combine(runs.baseline, SUMMED);
      results.ingest.svc_vs_baseline = ratios(runs.svc, runs.baseline, ['rate', 'cpu_us_per_msg', 'p50_ms', 'p99_ms']);
      // The search index's lag under the same full ingest (#43 part 1): medians of the rounds.
      const svc = results.ingest.svc;
      results.search = { index_lag_p99_ms: svc?.search_index_lag_p99_ms ?? null, index_lag_max_ms: svc?.search_index_lag_max_ms ?? null };
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
    (t) => runFanout(t, kind(t), paced, note),
    fanoutError,
    (runs) => {
      const pr = { svc: runs.svc.map((f) => f?.paced ?? null), baseline: runs.baseline.map((f) => f?.paced ?? null) };
      const max = { svc: runs.svc.map((f) => f?.max ?? null), baseline: runs.baseline.map((f) => f?.max ?? null) };
      results.fanout_paced.svc = markSaturation(combine(pr.svc, SUMMED));
      results.fanout_paced.baseline = markSaturation(combine(pr.baseline, SUMMED));
      results.fanout_paced.svc_vs_baseline = ratios(pr.svc, pr.baseline, ['p50_ms', 'p99_ms']);
      results.fanout_max.svc = combine(max.svc, SUMMED);
      results.fanout_max.baseline = combine(max.baseline, SUMMED);
      results.fanout_max.svc_vs_baseline = ratios(max.svc, max.baseline, ['deliveries_per_s', 'cpu_us_per_delivery']);
    },
  );

  log('svc: SSE fan-out');
  const s = await onFresh(
    sides.svc,
    'SSE fan-out',
    (t) => runFanout(t, 'svc-sse', paced, note),
    (m) => noteOn(results.sse_fanout, m),
  );
  results.sse_fanout.svc = s
    ? {
        deliveries_per_s: s.max.deliveries_per_s,
        p50_ms: s.paced.p50_ms,
        p99_ms: s.paced.p99_ms,
        rate: s.paced.rate,
        complete: s.paced.complete && s.max.complete,
        idle_pct: s.paced.idle_pct ?? null,
      }
    : null;
}

/** Scenario 6 on svc, then on the baseline's ws server. */
async function attach(): Promise<void> {
  const a: NonNullable<Results['attach_10k']> = { svc: null, baseline: null };
  results.attach_10k = a;
  for (const side of ['svc', 'baseline'] as const) {
    log(`${side}: attach_10k (${sizes.attach.n} attachments)`);
    a[side] = await step(
      `${side} attach_10k`,
      () => runAttach(side, tmp, sizes, note),
      (m) => noteOn(a, m),
    );
  }
}

const ctx: RunContext = { results, sizes, reps, tmp, log, note, noteOn, step, onFresh };

async function main(): Promise<void> {
  log(`size ${sizes.name}; temp folder ${tmp}`);
  const fanoutRoom = { id: 'fanout', members: [PUBLISHER, ...Array.from({ length: sizes.fanout.subscribers }, (_, k) => `a${k}`)] };
  const rooms = [{ id: 'ingest', members: [PUBLISHER] }, fanoutRoom];
  const paced = ['live', 'postgres', 'scaling', 'wake'].some(wants) ? await calibrate(rooms) : sizes;
  if (wants('live')) await live(rooms, paced);
  if (wants('live') || wants('receipts')) await runReceipts(ctx, rooms);
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
        if (client) await natsOnce(natsTarget(server, client.nc, client.js), paced);
        else await server.stop();
      }
    }
  }
  if (wants('attach')) await attach();

  if (wants('postgres')) await runPostgres(ctx, fanoutRoom, paced);
  if (wants('scaling')) await runScaling(ctx, fanoutRoom, paced);
  if (wants('wake')) await runWake(ctx, fanoutRoom, paced);

  if (wants('files'))
    await step(
      'files',
      () => runFiles(ctx),
      (m) => (results.files = { note: m }),
    );

  if (wants('history')) {
    const histDir = path.join(tmp, 'history');
    mkdirSync(histDir);
    const h = await step(
      'history',
      () => runHistory(histDir, sizes, log, note),
      (m) => noteOn(results.history, m),
    );
    results.history.svc = h;
    if (h && h.ingest_rate_empty > 0) results.write_cost_ratio.svc = Math.round((h.ingest_rate / h.ingest_rate_empty) * 100) / 100;
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
    for (const t of kept.values()) await t.stop().catch(() => undefined);
    await stopAll();
    write();
    finished = true;
    cleanup();
    if (failures.length > 0) process.exitCode = 1;
    log(failures.length ? `done; ${failures.length} step(s) failed to run` : 'done');
  });
