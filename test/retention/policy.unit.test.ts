// Retention policies, pure (src/retention/policy.ts, src/protocol/retention.ts, and the line
// `svc rooms get` prints): ages as svc.yaml writes them, a room's fields over the network's.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ageMs, limitsOf } from '../../src/retention/policy.js';
import { describeRetention } from '../../src/protocol/retention.js';
import { retentionLine } from '../../src/cli/commands/rooms/run.js';

test('ages: a whole number and one of s, m, h, d', () => {
  assert.equal(['45s', '15m', '12h', '30d'].map(ageMs), [45_000, 900_000, 43_200_000, 2_592_000_000]);
  for (const bad of ['0d', '1w', '1.5h', '12', 'h', '-1d', ' 1d']) assert.is(ageMs(bad), undefined, bad);
});

test("a room's fields win over the network's, field by field; nothing set is no limit", () => {
  assert.equal(limitsOf({ max_age: '30d', max_messages: 100 }, { max_messages: 5 }), { max_age_ms: 2_592_000_000, max_messages: 5 });
  assert.equal(limitsOf({ max_age: '1h' }, undefined), { max_age_ms: 3_600_000 });
  assert.equal(limitsOf(undefined, { max_age: '2s' }), { max_age_ms: 2000 });
  assert.is(limitsOf(undefined, undefined), undefined);
  assert.is(limitsOf({}, {}), undefined);
});

test('operators read a policy as one line, saying whose it is', () => {
  assert.is(describeRetention({ max_age: '30d', max_messages: 1000 }), '30d, 1000 messages');
  assert.is(describeRetention(undefined), 'forever');
  assert.is(retentionLine(undefined, undefined), 'forever');
  assert.is(retentionLine({ max_messages: 10 }, undefined), '10 messages (the room)');
  assert.is(retentionLine(undefined, { max_age: '7d' }), '7d (the network)');
  assert.is(retentionLine({ max_messages: 10 }, { max_age: '7d' }), '7d, 10 messages (the room over the network)');
});

test.run();
