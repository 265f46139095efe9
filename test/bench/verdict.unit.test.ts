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

t('the paced rate is a quarter of the messages per second each subscriber got from the baseline unpaced', () => {
  assert.is(PACED_SHARE, 0.25);
  const max = { deliveries_per_s: 164_400, cpu_us_per_delivery: 5.6, publish_rate: 1700, complete: true, attempts: 1 };
  assert.equal(pacedRate(max, 100, 1000), { rate: 411, baseline_unpaced_msgs_per_s: 1644, share: 0.25 });
});

t('a paced share leaves the host over 20% idle even when a paced message costs twice its unpaced share of CPU', () => {
  // The 2026-11-27 run: 3.5% idle unpaced; a paced message cost 1.9x its unpaced share (svc 1,298 µs
  // against 100 x 6.9 µs). At half the capacity that is 0.5 x 1.9 x 96.5% = 92% busy (13% idle
  // measured: saturated); at PACED_SHARE it must stay under 80% busy with that factor doubled again.
  const busy = (share: number, factor: number) => share * factor * (1 - 0.035);
  assert.ok(busy(0.5, 1.9) > 0.8);
  assert.ok(busy(PACED_SHARE, 1.9) < 0.5);
  assert.ok(busy(PACED_SHARE, 1.9 * 1.6) < 0.8);
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
