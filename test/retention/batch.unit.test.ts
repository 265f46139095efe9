// How the purge sizes its writes (src/retention/job.ts nextBatch): to a time budget per write, at
// the cost per message it has measured, so that a store (or a host) where a message costs more
// gets smaller writes and the event-loop stall stays near the budget; between PURGE_BATCH.min and
// .max, growing at most twofold a write; and paced, so that they take at most a share of the loop.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nextBatch, pauseAfter, PURGE_BATCH } from '../../src/retention/job.js';

const { budgetMs, min, max } = PURGE_BATCH;

test('a write over the budget makes the next one smaller, in proportion', () => {
  // 25 messages in 37 ms (what a fixed 25 stalled at 1M messages on a loaded host): 1.48 ms each.
  const n = nextBatch(25, 37, undefined);
  assert.is(n.size, Math.floor(budgetMs / (37 / 25)));
  assert.ok(n.size < 25);
  assert.ok(n.size * n.cost <= budgetMs);
});

test('cheap writes grow at most twofold a write, up to the largest', () => {
  let size = 25;
  let cost: number | undefined;
  const seen: number[] = [];
  for (let i = 0; i < 4; i++) {
    ({ size, cost } = nextBatch(size, size * 0.01, cost));
    seen.push(size);
  }
  assert.equal(seen, [50, max, max, max]);
});

test('never fewer than one message, however slow; a write that took no time is not an infinite rate', () => {
  assert.is(nextBatch(1, 500, undefined).size, min);
  assert.is(nextBatch(20, 0, undefined).size, 40);
  assert.is(nextBatch(80, 0, 0).size, max);
});

test('the cost follows the last writes: one slow write shrinks the next, then fast ones bring it back', () => {
  let { size, cost } = nextBatch(50, 50 * 0.02, undefined); // 0.02 ms a message
  assert.is(size, max);
  ({ size, cost } = nextBatch(size, 200, cost)); // a 200 ms hiccup (a busy host)
  assert.ok(size < 20, `after the hiccup: ${size}`);
  for (let i = 0; i < 20; i++) ({ size, cost } = nextBatch(size, size * 0.02, cost));
  assert.is(size, max);
});

test('between writes the job waits so that they take at most their share of the loop', () => {
  const ms = 8;
  assert.is(ms / (ms + pauseAfter(ms)), PURGE_BATCH.share);
  assert.is(pauseAfter(0), 0);
  assert.is(pauseAfter(-1), 0);
});

test.run();
