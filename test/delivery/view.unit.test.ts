// The delivery answer and the agent_wakes_waiting warning, from rows: exact values.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deliveryStatus, waitingAgents, waitingWarning, WAKES_SHOWN } from '../../src/delivery/view.js';
import type { WakeRow } from '../../src/delivery/rows.js';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();
const row = (agent: string, n: number, at: number, extra: Partial<WakeRow> = {}): WakeRow => ({
  agent_id: agent,
  message_id: `m${n}`,
  seq: n,
  reason: 'mention',
  target: { kind: 'room', room_id: 'ops' },
  first_offered_at: iso(at),
  last_offered_at: iso(at),
  offers: 1,
  ...extra,
});

const test = suite('delivery view');

test('the oldest pending wake is the one first handed over, and its age is counted from then', () => {
  const d = deliveryStatus(
    'a',
    { wakes: [row('a', 7, 20), row('a', 3, 5, { offers: 5, gave_up_at: iso(30) })], attachments: [] },
    T0 + 65_500,
  );
  assert.is(d.pending_wakes, 2);
  assert.is(d.oldest_pending_at, iso(5));
  assert.is(d.oldest_pending_seconds, 60);
  assert.is(d.gave_up, 1);
  assert.is(d.attached, false);
  assert.equal(
    d.wakes.map((w) => [w.message_id, w.cursor, w.offers, w.gave_up_at ?? null]),
    [
      ['m3', '3', 5, iso(30)],
      ['m7', '7', 1, null],
    ],
  );
  assert.is(d.last_ack_at, null);
});

test('nothing pending answers nulls; the list is cut at WAKES_SHOWN but the count is not', () => {
  const none = deliveryStatus('a', { wakes: [], attachments: [{ by: 'agent_run', since: iso(0) }], ack: { at: iso(1) } }, T0);
  assert.equal(
    [none.pending_wakes, none.oldest_pending_at, none.oldest_pending_seconds, none.attached, none.last_ack_at],
    [0, null, null, true, iso(1)],
  );
  const many = deliveryStatus('a', { wakes: Array.from({ length: WAKES_SHOWN + 5 }, (_, i) => row('a', i + 1, i)), attachments: [] }, T0);
  assert.is(many.pending_wakes, WAKES_SHOWN + 5);
  assert.is(many.wakes.length, WAKES_SHOWN);
});

test('the warning names agents past the threshold, the longest waiting first, and no one else', () => {
  const waiting = waitingAgents([row('b', 1, 50), row('a', 2, 0), row('a', 3, 10, { gave_up_at: iso(40) }), row('c', 4, 95)]);
  assert.equal(
    waiting.map((w) => [w.agent_id, w.pending, w.gave_up]),
    [
      ['a', 2, 1],
      ['b', 1, 0],
      ['c', 1, 0],
    ],
  );
  const [w] = waitingWarning(waiting, 30_000, T0 + 100_000);
  assert.is(w!.code, 'agent_wakes_waiting');
  assert.is(
    w!.message,
    'wakes handed to agents and not acknowledged for more than 30 s: a (2 waiting, the oldest for 100 s, 1 no longer offered after the last redelivery); b (1 waiting, the oldest for 50 s)',
  );
  assert.equal(waitingWarning(waiting, 200_000, T0 + 100_000), []);
});

test.run();
