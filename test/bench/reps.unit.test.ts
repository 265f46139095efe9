// The benchmark's repetitions (bench/lib/reps.ts): medians with their spread, and svc / baseline
// ratios from the medians with the range of the per-pair ratios. Pure logic, exact values.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { combine, median, ratios } from '../../bench/lib/reps.js';

const t = suite('benchmark repetitions');

t('the median of an odd count is the middle value, of an even count the mean of the middle two', () => {
  assert.is(median([5, 1, 3]), 3);
  assert.is(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

t('each number becomes its median with min, max and every repetition in run order', () => {
  const r = combine(
    [
      { rate: 6100, p99_ms: 40, errors: 1, complete: true },
      { rate: 6500, p99_ms: 48.2, errors: 0, complete: true },
      { rate: 6378, p99_ms: 43.7, errors: 2, complete: false },
    ],
    ['errors'],
  );
  assert.equal(r, {
    rate: 6378,
    p99_ms: 43.7,
    errors: 3,
    complete: false,
    reps: 3,
    spread: { rate: { min: 6100, max: 6500, values: [6100, 6500, 6378] }, p99_ms: { min: 40, max: 48.2, values: [40, 48.2, 43.7] } },
  });
});

t('failed repetitions are left out, and a figure missing in one keeps its place as null', () => {
  const r = combine([{ p99_ms: 10 }, null, { p99_ms: null }, { p99_ms: 20 }]);
  assert.equal(r, { p99_ms: 15, reps: 3, spread: { p99_ms: { min: 10, max: 20, values: [10, null, 20] } } });
  assert.is(combine([null, null]), null);
});

t('the ratio comes from the medians and its range from the pairs run next to each other', () => {
  const svc = [{ rate: 600 }, { rate: 500 }, { rate: 660 }];
  const base = [{ rate: 1000 }, { rate: 1000 }, { rate: 1100 }];
  assert.equal(ratios(svc, base, ['rate']), { rate: { ratio: 0.6, min: 0.5, max: 0.6, pairs: [0.6, 0.5, 0.6] } });
});

t('a pair with a failed side has no ratio and does not count in the range', () => {
  const r = ratios([{ p99_ms: 30 }, null, { p99_ms: 20 }], [{ p99_ms: 10 }, { p99_ms: 10 }, null], ['p99_ms']);
  assert.equal(r, { p99_ms: { ratio: 2.5, min: 3, max: 3, pairs: [3, null, null] } });
});

t.run();
