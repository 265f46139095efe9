// The benchmark's smoke run (tiny sizes, half-second phases, one repetition; 59 s at a load average of 20) so it cannot rot: `bench/run.ts --quick --smoke`
// must start everything, run every scenario and write a results file of the published shape.
// Only the shape is asserted: speed lives in the benchmark, never in tests.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, SVC_BIN } from '../helpers/server.js';
import { tsImport } from '../../bench/lib/ts-loader.js';

type Json = any;

const t = suite<{ dir: string; results: Json; output: string; code: number | null }>('the benchmark smoke run');

t.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-smoke-'));
  const out = path.join(ctx.dir, 'results.json');
  const child = spawn(process.execPath, [...tsImport(), path.join(ROOT, 'bench/run.ts'), '--quick', '--smoke', '--out', out], {
    cwd: ROOT,
    // The script the tests run as svc (from the sources or this run's build): no dist/ needed.
    env: { ...process.env, SVC_BENCH_BIN: SVC_BIN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // The run bounds itself (540 s: before the instance curve and the wake rows ~60 s quiet, 95 s at a load average of 10, over 200 s at 20; those two add about 4 minutes at a load average of 25); this is the backstop that keeps npm test from hanging.
  const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
  ctx.code = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  ctx.output = output;
  try {
    ctx.results = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    ctx.results = undefined;
  }
});
t.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

const isNum = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
const numbers = (o: Json, keys: string[], where: string) => {
  assert.type(o, 'object', `${where} is missing`);
  assert.ok(o !== null, `${where} is null`);
  for (const k of keys) assert.ok(isNum(o[k]), `${where}.${k} is not a number: ${JSON.stringify(o[k])}`);
};
/** A reference that could not run is null with a note saying why. */
const numbersOrNoted = (section: Json, name: string, keys: string[], where: string) => {
  if (section[name] === null) assert.type(section.note, 'string', `${where}.${name} is null without a note`);
  else numbers(section[name], keys, `${where}.${name}`);
};

t('exits on its own with every scenario run and writes a results file', ({ code, results, output }) => {
  // A scenario that failed to run fails the bench (exit code 1).
  assert.is(code, 0, output.slice(-3000));
  assert.type(results, 'object', output.slice(-3000));
});

t('prints every target with met, missed or saturated, and a summary of them', ({ output }) => {
  const rows = output.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| scenario'));
  assert.ok(rows.length > 20, `only ${rows.length} table rows`);
  const judged: string[] = [];
  for (const row of rows) {
    const cols = row.split('|').map((c) => c.trim());
    const [target, verdict] = [cols.at(-4), cols.at(-2)];
    if (!target) continue;
    // '—' only where this run had nothing to judge (the stall row without a checkpoint in a tiny store).
    assert.match(verdict ?? '', /^(met|missed|saturated|—)$/, `target "${target}": ${row}`);
    if (verdict !== '—') judged.push(cols[1]!);
  }
  for (const must of [
    'fan-out paced, p99',
    'history page p99',
    'resident memory per attachment',
    'one room message to all',
    'agent run',
    'wait_for_messages',
  ])
    assert.ok(
      judged.some((w) => w.includes(must)),
      `no verdict on "${must}"`,
    );
  assert.match(output, /targets: \d+ met, \d+ missed, \d+ saturated/);
});

t('paces the fan-out at a quarter of the rate the baseline sustained unpaced in the same run', ({ results }) => {
  const p = results.params;
  numbers(p, ['paced_rate', 'baseline_unpaced_msgs_per_s'], 'params');
  assert.is(p.paced_share, 0.25);
  // Both are rounded from the same unrounded rate: within one message per second of each other.
  assert.ok(Math.abs(p.paced_rate - 0.25 * p.baseline_unpaced_msgs_per_s) <= 1, `${p.paced_rate} vs ${p.baseline_unpaced_msgs_per_s}`);
  assert.is(results.fanout_paced.svc.rate > 0, true);
});

t('gives each paced row the host idle share and whether it was saturated', ({ results }) => {
  for (const side of ['svc', 'baseline', 'svc_postgres_cross']) {
    const r = results.fanout_paced[side];
    numbers(r, ['idle_pct'], `fanout_paced.${side}`);
    assert.type(r.saturated, 'boolean', `fanout_paced.${side}.saturated`);
    assert.is(r.saturated, r.idle_pct < 20, `fanout_paced.${side}.saturated disagrees with its idle share ${r.idle_pct}`);
  }
});

t('attaches many agents to svc and as many sockets to the baseline, and times a broadcast to all', ({ results }) => {
  for (const side of ['svc', 'baseline']) {
    const a = results.attach_10k[side];
    numbers(a, ['mem_kb_per_attachment', 'broadcast_p99_ms', 'attach_storm_s', 'attachments', 'idle_pct'], `attach_10k.${side}`);
    assert.is(a.attachments, results.params.attachments, `attach_10k.${side}.attachments`);
    assert.ok(a.complete, `attach_10k.${side}: every member got every broadcast`);
  }
});

t('describes the date and the machine', ({ results }) => {
  assert.ok(!Number.isNaN(Date.parse(results.date)));
  numbers(results.machine, ['cores', 'memory_gb'], 'machine');
  assert.match(results.machine.node, /^v\d+\./);
});

t('measures ingest on svc and the baseline, and NATS or says why not', ({ results }) => {
  numbers(results.ingest.svc, ['rate', 'p50_ms', 'p99_ms'], 'ingest.svc');
  numbers(results.ingest.baseline, ['rate', 'p50_ms', 'p99_ms'], 'ingest.baseline');
  numbersOrNoted(results.ingest, 'nats', ['rate', 'p50_ms', 'p99_ms'], 'ingest');
});

t('measures how far the search index is behind the acknowledged sends under the full ingest', ({ results }) => {
  numbers(results.ingest.svc, ['search_index_lag_p99_ms', 'search_index_lag_max_ms'], 'ingest.svc');
  numbers(results.search, ['index_lag_p99_ms', 'index_lag_max_ms'], 'search');
  assert.ok(results.search.index_lag_p99_ms <= results.search.index_lag_max_ms, 'search: the p99 is at most the longest');
});

t('measures paced and unpaced fan-out on every target', ({ results }) => {
  numbers(results.fanout_paced.svc, ['rate', 'p50_ms', 'p99_ms', 'cpu_us_per_msg', 'host_idle_pct'], 'fanout_paced.svc');
  numbers(results.fanout_paced.baseline, ['rate', 'p50_ms', 'p99_ms'], 'fanout_paced.baseline');
  numbersOrNoted(results.fanout_paced, 'nats', ['rate', 'p50_ms', 'p99_ms'], 'fanout_paced');
  numbers(results.fanout_max.svc, ['deliveries_per_s'], 'fanout_max.svc');
  numbers(results.fanout_max.baseline, ['deliveries_per_s'], 'fanout_max.baseline');
  numbersOrNoted(results.fanout_max, 'nats', ['deliveries_per_s'], 'fanout_max');
});

t('measures store bytes and resident memory per 1,000 deliveries with receipts on and off', ({ results, output }) => {
  const kept = results.receipts?.per_1k_deliveries;
  for (const side of ['with', 'without'])
    numbers(kept?.[side], ['deliveries', 'store_bytes_per_1k', 'rss_kib_per_1k'], `receipts.per_1k_deliveries.${side}`);
  assert.ok(kept.with.deliveries > 0 && kept.without.deliveries > 0, 'the measured phase made no deliveries');
  assert.match(output, /\| store bytes per 1,000 deliveries to \d+ ACKing agents with receipts/);
  assert.match(output, /\| … resident memory per 1,000 deliveries/);
});

t('gives svc and the baseline as medians of interleaved repetitions, with their spread and the ratio of the medians', ({ results }) => {
  const reps = results.params.reps;
  assert.ok(Number.isInteger(reps) && reps >= 1, `params.reps: ${JSON.stringify(reps)}`);
  const figures: [string, string][] = [
    ['ingest', 'rate'],
    ['ingest', 'cpu_us_per_msg'],
    ['ingest', 'p99_ms'],
    ['fanout_paced', 'p99_ms'],
    ['fanout_max', 'deliveries_per_s'],
  ];
  for (const [section, key] of figures) {
    for (const side of ['svc', 'baseline']) {
      const r = results[section][side];
      const where = `${section}.${side}`;
      assert.is(r.reps, reps, `${where}.reps`);
      const s = r.spread[key];
      numbers(s, ['min', 'max'], `${where}.spread.${key}`);
      assert.is(s.values.length, reps, `${where}.spread.${key}.values`);
      assert.ok(s.min <= r[key] && r[key] <= s.max, `${where}.${key} ${r[key]} is outside its spread ${s.min}-${s.max}`);
    }
    const q = results[section].svc_vs_baseline[key];
    numbers(q, ['ratio', 'min', 'max'], `${section}.svc_vs_baseline.${key}`);
    assert.is(q.pairs.length, reps, `${section}.svc_vs_baseline.${key}.pairs`);
    assert.ok(
      Math.abs(q.ratio - results[section].svc[key] / results[section].baseline[key]) < 0.001,
      `${section}.svc_vs_baseline.${key}.ratio is not the ratio of the medians`,
    );
  }
});

t('measures ingest on one Postgres instance and paced fan-out across two', ({ results }) => {
  numbers(results.ingest.svc_postgres, ['rate', 'p50_ms', 'p99_ms'], 'ingest.svc_postgres');
  const cross = results.fanout_paced.svc_postgres_cross;
  numbers(cross, ['rate', 'p50_ms', 'p99_ms', 'send_p50_ms', 'send_p99_ms'], 'fanout_paced.svc_postgres_cross');
  // Where the CPU went: both instances, the database and what the machine had left.
  numbers(
    cross,
    ['cpu_us_per_msg', 'publisher_cpu_us_per_msg', 'db_cpu_us_per_msg', 'db_xacts_per_msg', 'host_idle_pct'],
    'fanout_paced.svc_postgres_cross',
  );
  assert.ok(cross.complete, 'every agent on the second instance got every message');
  // Repeated like the sqlite rows they are compared with.
  for (const [where, r] of [
    ['ingest.svc_postgres', results.ingest.svc_postgres],
    ['fanout_paced.svc_postgres_cross', cross],
  ]) {
    assert.is(r.reps, results.params.reps, `${where}.reps`);
    assert.is(r.spread.p99_ms.values.length, results.params.reps, `${where}.spread.p99_ms.values`);
  }
});

t('draws the cost curve of 1, 2 and 4 instances on one Postgres under the same paced fan-out', ({ results }) => {
  for (const n of [1, 2, 4]) {
    const where = `scaling.instances_${n}`;
    const x = results.scaling?.[`instances_${n}`];
    numbers(x, ['deliveries_per_s', 'instance_cpu_us_per_msg', 'db_cpu_us_per_msg', 'db_xacts_per_msg', 'idle_pct'], where);
    assert.is(x.instances, n, `${where}.instances`);
    assert.is(x.instance_cpu_us_per_msg_each.length, n, `${where}: a CPU figure per instance`);
    assert.ok(x.complete && x.delivered === x.expected && x.expected > 0, `${where}: every agent got every message from every instance`);
    assert.ok(x.deliveries_per_s > 0 && x.db_xacts_per_msg > 0, `${where}: ${JSON.stringify(x)}`);
    assert.ok(x.instance_cpu_us_per_msg >= 0 && x.db_cpu_us_per_msg >= 0, `${where}: ${JSON.stringify(x)}`);
  }
});

t("times a mention's wake of svc agent run and of an MCP wait beside the baseline's frames at the same load", ({ results }) => {
  const w = results.wake;
  for (const k of ['agent_run', 'mcp_wait', 'baseline']) {
    numbers(w?.[k], ['p50_ms', 'p99_ms'], `wake.${k}`);
    assert.ok(w[k].p50_ms > 0 && w[k].p50_ms <= w[k].p99_ms, `wake.${k}: ${JSON.stringify(w[k])}`);
  }
  assert.ok(w.agent_run.probes > 0 && w.mcp_wait.probes > 0, 'wake: some mentions were measured');
  assert.type(w.saturated, 'boolean', 'wake.saturated');
});

t('measures SSE fan-out on svc', ({ results }) => {
  numbers(results.sse_fanout.svc, ['deliveries_per_s', 'p50_ms', 'p99_ms'], 'sse_fanout.svc');
});

t('measures history, search, start-up, memory and size on a filled store, and the write cost ratio', ({ results }) => {
  numbers(
    results.history.svc,
    ['messages', 'p50_ms', 'p99_ms', 'search_p50_ms', 'search_p99_ms', 'startup_s', 'rss_mb', 'db_mb', 'max_pause_ms'],
    'history.svc',
  );
  assert.ok(results.history.svc.messages > 0);
  // The same page on a small store: the target is the ratio, so it means the same on any machine.
  const h = results.history.svc;
  numbers(h, ['p99_ms_small', 'messages_small', 'p99_ratio', 'idle_pct'], 'history.svc');
  assert.ok(h.messages_small < h.messages, 'the small store is smaller');
  assert.ok(Math.abs(h.p99_ratio - h.p99_ms / h.p99_ms_small) < 0.001, 'history.svc.p99_ratio is p99_ms / p99_ms_small');
  // The write cost is the big store's ingest over the same ingest on an empty store, from this scenario.
  numbers(h, ['ingest_rate', 'ingest_rate_empty'], 'history.svc');
  // As many big-store rounds as empty-store ones, one each per repetition.
  assert.equal(h.ingest_rates.length, results.params.reps ?? 1, 'history.svc.ingest_rates: a rate per repetition');
  assert.equal(h.ingest_rates_empty.length, h.ingest_rates.length, 'history.svc.ingest_rates_empty: as many as ingest_rates');
  // The stall is read from the watch preloaded into svc serve: a number, and a turn takes some time.
  numbers(h, ['event_loop_max_ms'], 'history.svc');
  assert.ok(h.event_loop_max_ms >= 1, `history.svc.event_loop_max_ms: ${h.event_loop_max_ms}`);
  assert.ok(h.ingest_rate_empty > 0, 'the empty-store ingest ran');
  assert.ok(isNum(results.write_cost_ratio.svc), `write_cost_ratio.svc: ${JSON.stringify(results.write_cost_ratio)}`);
  assert.ok(
    Math.abs(results.write_cost_ratio.svc - h.ingest_rate / h.ingest_rate_empty) < 0.01,
    'write_cost_ratio.svc is history.svc.ingest_rate / ingest_rate_empty',
  );
});

t('measures uploads and the ingest p99 with them beside the same ingest alone', ({ results }) => {
  const f = results.files;
  numbers(f, ['upload_mib_per_s', 'ingest_p99_ms_with_uploads', 'ingest_p99_ms_alone', 'ingest_p99_ratio', 'uploads'], 'files');
  assert.ok(f.uploads > 0, 'files.uploads: some uploads finished during the ingest');
  assert.ok(f.upload_mib_per_s > 0, 'files.upload_mib_per_s');
});

t.run();
