// The smoke run of the scenarios on PostgreSQL (ingest, the fan-out across two instances, the
// cost curve of 1, 2 and 4 instances) and of the wake latency: smoke-run.ts says what the three
// smoke files are for.

import * as assert from 'uvu/assert';
import { assertIdle, assertPacedRate, assertVerdicts, numbers, smokeSuite } from './smoke-run.js';

const t = smokeSuite(['postgres', 'scaling', 'wake']);

t('prints every target with met, missed or saturated, and a summary of them', ({ output }) => {
  assertVerdicts(output, ['agent run', 'wait_for_messages']);
});

t('paces the fan-out at an eighth of the rate the baseline sustained unpaced in the same run', ({ results }) => {
  assertPacedRate(results);
});

t('gives the paced row across instances the host idle share and whether it was saturated', ({ results }) => {
  assertIdle(results.fanout_paced, ['svc_postgres_cross'], 'fanout_paced');
});

t('measures ingest on one Postgres instance and paced fan-out across two', ({ results, output }) => {
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
  // The same with one agent, so the fan-out's own database cost is what the two differ by.
  const one = results.fanout_paced.svc_postgres_cross_one;
  numbers(one, ['p99_ms', 'db_cpu_us_per_msg', 'db_xacts_per_msg'], 'fanout_paced.svc_postgres_cross_one');
  assert.ok(one.complete && one.expected === one.delivered && one.expected > 0, 'the one agent got every message');
  assert.match(output, /the fan-out's own database cost per message \(\d+ agents less 1\): transactions; CPU \| -?[\d.]+ \(/);
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

t.run();
