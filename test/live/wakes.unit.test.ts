// The wakes an attachment holds: which are due to be sent again, and when they are given up on.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WakeLedger } from '../../src/live/attach/wakes.js';
import type { Wake } from '../../src/live/agent-events.js';

const wake = (id: string): Wake => ({ message_id: id, reason: 'dm', target: { kind: 'dm', dm_id: 'd', participant_ids: [] } });

const test = suite('wake ledger');

test('a wake is due again each deadline until the bound; then given up once and kept', () => {
  const l = new WakeLedger();
  l.add(5, wake('m5'), 0);
  assert.equal(l.due(999, 1000, 3), { resend: [], giveUp: [] });
  const first = l.due(1000, 1000, 3);
  assert.equal(
    first.resend.map((w) => [w.seq, w.offers]),
    [[5, 2]],
  );
  assert.is(l.due(1500, 1000, 3).resend.length, 0);
  assert.equal(
    l.due(2000, 1000, 3).resend.map((w) => w.offers),
    [3],
  );
  const last = l.due(3000, 1000, 3);
  assert.equal([last.resend.length, last.giveUp.map((w) => w.seq)], [0, [5]]);
  assert.equal(l.due(9000, 1000, 3), { resend: [], giveUp: [] });
  assert.is(l.offering, false);
  assert.is(l.size, 1);
  assert.equal(
    l.ackUpTo(5).map((w) => w.wake.message_id),
    ['m5'],
  );
  assert.is(l.size, 0);
});

test('an ACK takes the wakes at or below its cursor only', () => {
  const l = new WakeLedger();
  l.add(3, wake('a'), 0);
  l.add(8, wake('b'), 0);
  assert.equal(
    l.ackUpTo(5).map((w) => w.seq),
    [3],
  );
  assert.is(l.offering, true);
  assert.equal(
    l.drain().map((w) => w.seq),
    [8],
  );
});

test.run();
