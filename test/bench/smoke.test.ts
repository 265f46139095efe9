// The benchmark's smoke run (tiny sizes, one repetition, ~20-30 s) so it cannot rot: `bench/run.ts --quick --smoke`
// must start everything, run every scenario and write a results file of the published shape.
// Only the shape is asserted: speed lives in the benchmark, never in tests.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, SVC_BIN } from '../helpers/server.js';

type Json = any;

const t = suite<{ dir: string; results: Json; output: string; code: number | null }>('the benchmark smoke run');

t.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-smoke-'));
  const out = path.join(ctx.dir, 'results.json');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/run.ts'), '--quick', '--smoke', '--out', out], {
    cwd: ROOT,
    // The script the tests run as svc (from the sources or this run's build): no dist/ needed.
    env: { ...process.env, SVC_BENCH_BIN: SVC_BIN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // The run bounds itself (110 s); this is the backstop that keeps npm test from hanging.
  const timer = setTimeout(() => child.kill('SIGKILL'), 160_000);
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

t('exits on its own and writes a results file', ({ code, results, output }) => {
  assert.is(code, 0, output.slice(-3000));
  assert.type(results, 'object', output.slice(-3000));
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

t('measures paced and unpaced fan-out on every target', ({ results }) => {
  numbers(results.fanout_paced.svc, ['rate', 'p50_ms', 'p99_ms', 'cpu_us_per_msg', 'host_idle_pct'], 'fanout_paced.svc');
  numbers(results.fanout_paced.baseline, ['rate', 'p50_ms', 'p99_ms'], 'fanout_paced.baseline');
  numbersOrNoted(results.fanout_paced, 'nats', ['rate', 'p50_ms', 'p99_ms'], 'fanout_paced');
  numbers(results.fanout_max.svc, ['deliveries_per_s'], 'fanout_max.svc');
  numbers(results.fanout_max.baseline, ['deliveries_per_s'], 'fanout_max.baseline');
  numbersOrNoted(results.fanout_max, 'nats', ['deliveries_per_s'], 'fanout_max');
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
  assert.ok(isNum(results.write_cost_ratio.svc), `write_cost_ratio.svc: ${JSON.stringify(results.write_cost_ratio)}`);
});

t.run();
