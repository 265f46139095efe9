// The smoke run of the live scenarios on svc and the baseline (ingest, fan-out, SSE) and the
// receipts rows: smoke-run.ts says what the three smoke files are for.

import * as assert from 'uvu/assert';
import { assertIdle, assertPacedRate, assertVerdicts, numbers, numbersOrNoted, smokeSuite } from './smoke-run.js';

const t = smokeSuite(['live']);

t('prints every target with met, missed or saturated, and a summary of them', ({ output }) => {
  assertVerdicts(output, ['fan-out paced, p99', 'ingest, messages/s']);
});

t('paces the fan-out at an eighth of the rate the baseline sustained unpaced in the same run', ({ results }) => {
  assertPacedRate(results);
  assert.is(results.fanout_paced.svc.rate > 0, true);
});

t('gives each paced row the host idle share and whether it was saturated', ({ results }) => {
  assertIdle(results.fanout_paced, ['svc', 'baseline'], 'fanout_paced');
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

t('measures SSE fan-out on svc', ({ results }) => {
  numbers(results.sse_fanout.svc, ['deliveries_per_s', 'p50_ms', 'p99_ms'], 'sse_fanout.svc');
});

t('describes the date and the machine', ({ results }) => {
  assert.ok(!Number.isNaN(Date.parse(results.date)));
  numbers(results.machine, ['cores', 'memory_gb'], 'machine');
  assert.match(results.machine.node, /^v\d+\./);
});

t.run();
