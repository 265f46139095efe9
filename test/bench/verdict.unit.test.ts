// The benchmark's verdicts (bench/lib/verdict.ts, bench/lib/table.ts) and the paced rate of a run
// (bench/scenarios/paced-rate.ts): which rows are met, missed or saturated, and how the paced rate
// follows the baseline. Pure logic, exact values.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isSaturated, lowestIdle, SATURATED_BELOW_PCT, verdict } from '../../bench/lib/verdict.js';
import { verdicts } from '../../bench/lib/table.js';
import { markSaturation, pacedRate, withPacedRate } from '../../bench/scenarios/paced-rate.js';
import { PACED_SHARE, QUICK } from '../../bench/lib/sizes.js';
import { BROADCAST_DUTY, restAfterBroadcast } from '../../bench/scenarios/attach.js';
import { scaleWakeRows, wakeRatio, wakeVerdict } from '../../bench/lib/table-scale-wake.js';
import { spread } from '../../bench/scenarios/scaling.js';
import type { Results } from '../../bench/lib/report.js';

const t = suite('benchmark verdicts and the paced rate');

t('a row with under 20% of the host idle is saturated, whether its figure met the target or not', () => {
  assert.is(SATURATED_BELOW_PCT, 20);
  assert.is(verdict(true, 19.9), 'saturated');
  assert.is(verdict(false, 0), 'saturated');
  assert.is(verdict(true, 20), 'met');
  assert.is(verdict(false, 55), 'missed');
});

t('a row without an idle share is met or missed, and a row without a figure has no verdict', () => {
  assert.is(verdict(true), 'met');
  assert.is(verdict(false, null), 'missed');
  assert.is(verdict(null, 5), '—');
  assert.is(isSaturated(undefined), null);
  assert.is(isSaturated(Number.NaN), null);
});

t('a row comparing two measurements is as saturated as the busier of them', () => {
  assert.is(lowestIdle(42, 12.5, null), 12.5);
  assert.is(lowestIdle(null, undefined), null);
});

t('the paced rate is an eighth of the messages per second each subscriber got from the baseline unpaced', () => {
  assert.is(PACED_SHARE, 0.125);
  const max = { deliveries_per_s: 164_400, cpu_us_per_delivery: 5.6, publish_rate: 1700, complete: true, attempts: 1 };
  assert.equal(pacedRate(max, 100, 1000), { rate: 206, baseline_unpaced_msgs_per_s: 1644, share: 0.125 });
});

t('the paced share leaves the busiest paced row over 20% idle with room for a slower host', () => {
  // The 2026-12-01 run at a quarter: four instances on one Postgres left the host 7.8% idle, the
  // Postgres cross row and the wakes 17%, the fan-out 28%. Busy time follows the rate.
  const busy = (share: number, busyAtQuarter: number) => (busyAtQuarter * share) / 0.25;
  assert.ok(busy(0.25, 0.922) > 0.8);
  assert.ok(busy(PACED_SHARE, 0.922) < 0.5);
  assert.ok(busy(PACED_SHARE, 0.922 * 1.5) < 0.8);
});

t('the broadcasts rest as long as each took, so they keep the host busy at most half the time', () => {
  assert.is(BROADCAST_DUTY, 0.5);
  assert.is(restAfterBroadcast(840), 840);
  assert.is(restAfterBroadcast(0), 0);
  assert.is(restAfterBroadcast(-5), 0);
  const active = 300;
  assert.is(active / (active + restAfterBroadcast(active)), BROADCAST_DUTY);
});

t('an incomplete or failed calibration falls back to the size fixed rate', () => {
  const partial = { deliveries_per_s: 90_000, cpu_us_per_delivery: 5, publish_rate: 1700, complete: false, attempts: 3 };
  assert.equal(pacedRate(partial, 100, 1000), { rate: 1000, baseline_unpaced_msgs_per_s: null, share: PACED_SHARE });
  assert.is(pacedRate(null, 100, 200).rate, 200);
});

t('the paced sizes change only the rate', () => {
  const s = withPacedRate(QUICK, 321);
  assert.is(s.fanout.rate, 321);
  assert.is(s.fanout.subscribers, QUICK.fanout.subscribers);
  assert.is(QUICK.fanout.rate, 200);
});

t('a combined paced row is saturated when its median idle share is under 20%', () => {
  assert.is(markSaturation({ idle_pct: 14, saturated: false })?.saturated, true);
  assert.is(markSaturation({ idle_pct: 35, saturated: true })?.saturated, false);
  assert.is(markSaturation(null), null);
});

t('a wake is met at up to twice the baseline frame p99, missed above, saturated under 20% idle, unjudged without a figure', () => {
  assert.is(wakeRatio(30, 15), 2);
  assert.is(wakeVerdict(30, 15, 50), 'met');
  assert.is(wakeVerdict(30.1, 15, 50), 'missed');
  assert.is(wakeVerdict(10, 15, 19), 'saturated');
  assert.is(wakeVerdict(null, 15, 50), '—');
  assert.is(wakeVerdict(10, null, 50), '—');
  assert.is(wakeRatio(10, 0), null);
});

t('the scaling agents are spread over the instances in blocks that differ by at most one', () => {
  assert.equal(spread(100, 1), [{ first: 0, n: 100 }]);
  assert.equal(
    spread(100, 4),
    [0, 25, 50, 75].map((first) => ({ first, n: 25 })),
  );
  assert.equal(spread(5, 4), [
    { first: 0, n: 2 },
    { first: 2, n: 1 },
    { first: 3, n: 1 },
    { first: 4, n: 1 },
  ]);
});

t('the wake rows carry their verdict into the summary; the scaling rows have none', () => {
  const r = {
    params: { ingest_clients: 1, subscribers: 100, paced_rate: 400, seconds: 1 },
    scaling: {
      instances_1: {
        instances: 1,
        rate: 400,
        agents: 100,
        deliveries_per_s: 40_000,
        instance_cpu_us_per_msg: 600,
        instance_cpu_us_per_msg_each: [600],
        db_cpu_us_per_msg: 60,
        db_xacts_per_msg: 0.2,
        p50_ms: 5,
        p99_ms: 20,
        complete: true,
        delivered: 1,
        expected: 1,
        idle_pct: 50,
      },
    },
    wake: {
      agent_run: { p50_ms: 20, p99_ms: 40 },
      mcp_wait: { p50_ms: 160, p99_ms: 200 },
      baseline: { p50_ms: 3, p99_ms: 25 },
      idle_pct: 45,
      baseline_idle_pct: 60,
    },
  } as unknown as Results;
  const rows = scaleWakeRows(r);
  assert.is(rows.length, 5, 'three instance counts (two not measured) and two wake paths');
  assert.ok(rows.every((row) => row.length === 9));
  assert.match(rows[0]![1]!, /40,000; 600 µs; 60 µs \(0\.2\)/);
  assert.is(rows[1]![1], '—');
  const md = ['| h |', '| --- |', ...rows.map((c) => `| ${c.join(' | ')} |`)].join('\n');
  assert.equal(verdicts(md), { met: 1, missed: 1, saturated: 0, '—': 0 });
});

t('the summary counts the verdict of every row with a target, and only those', () => {
  const md = [
    '| a | target | idle |  |',
    '| --- | --- | --- | --- |',
    '| x | ≤ 1× | 3% | saturated |',
    '| y | ≥ 2 | 50% | met |',
    '| z | ≥ 2 | 50% | missed |',
    '| v | ≥ 2 | — | — |',
    '| w |  | — | — |',
  ].join('\n');
  assert.equal(verdicts(md), { met: 1, missed: 1, saturated: 1, '—': 1 });
});

t.run();
