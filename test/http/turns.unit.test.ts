// How the HTTP edge spreads requests over event-loop iterations (src/http/turns.ts): requests start
// at once while the iteration's budget lasts, the rest in arrival order in later check phases, each
// phase starting at least one, and a timer runs between phases that spent their budget.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RequestTurns } from '../../src/http/turns.js';

/** A clock each started request moves on by `cost` ms (the request's run). */
function clocked(cost: number) {
  let t = 1000;
  const started: string[] = [];
  const turns = new RequestTurns(undefined, 4, () => t);
  const start = (name: string) => () => {
    started.push(name);
    t += cost;
  };
  return { turns, started, start };
}

const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

test('requests start at once while the budget lasts, the rest wait in arrival order', async () => {
  const { turns, started, start } = clocked(1.5);
  for (const n of ['a', 'b', 'c', 'd', 'e']) turns.run(start(n));
  assert.equal(started, ['a', 'b', 'c'], 'a at 0 ms, b at 1.5, c at 3; d would start at 4.5, past the 4 ms budget');
  assert.is(turns.waiting, 2);
  await nextCheckPhase();
  await nextCheckPhase();
  assert.equal(started, ['a', 'b', 'c', 'd', 'e']);
  assert.is(turns.waiting, 0);
});

test('a request arriving while others wait goes behind them, even with budget left', async () => {
  let t = 0;
  const started: string[] = [];
  const turns = new RequestTurns(undefined, 4, () => t);
  turns.run(() => {
    started.push('a');
    t += 5;
  });
  turns.run(() => started.push('b'));
  t = 1; // the clock alone would let c start now
  turns.run(() => started.push('c'));
  assert.equal(started, ['a'], 'b waits for the check phase, c behind it');
  await nextCheckPhase();
  assert.equal(started, ['a', 'b', 'c']);
});

test('each check phase starts at least one waiting request: one a phase when each is over the budget', async () => {
  const { turns, started, start } = clocked(10);
  for (const n of ['a', 'b', 'c', 'd']) turns.run(start(n));
  assert.equal(started, ['a']);
  // Each await resumes after the phase's attempts (its immediate was queued after them).
  for (const expected of ['ab', 'abc', 'abcd']) {
    await nextCheckPhase();
    assert.is(started.join(''), expected);
  }
  assert.is(turns.waiting, 0);
});

test.run();
