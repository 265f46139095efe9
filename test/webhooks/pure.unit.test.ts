import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPrivateAddress, privateHostRefusal } from '../../src/protocol/private-address.js';
import { afterFailure } from '../../src/webhooks/backoff.js';
import { matches } from '../../src/webhooks/events.js';
import type { ServiceEvent } from '../../src/protocol/types.js';

const test = suite('webhook rules');

test('loopback, private, link-local and mapped addresses are private; public ones are not', () => {
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])
    assert.ok(isPrivateAddress(a), a);
  for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.not.ok(isPrivateAddress(a), a);
  assert.ok(privateHostRefusal('localhost'));
  assert.ok(privateHostRefusal('[::1]'));
  assert.is(privateHostRefusal('example.com'), undefined);
});

test('retries back off exponentially with jitter within the window, then the delivery is dead', () => {
  const retry = { window_ms: 10_000, initial_ms: 100, max_ms: 1000 };
  assert.equal(
    afterFailure(1, 0, 0, retry, () => 0),
    { status: 'pending', at: 50 },
  );
  assert.equal(
    afterFailure(1, 0, 0, retry, () => 1),
    { status: 'pending', at: 100 },
  );
  assert.equal(
    afterFailure(3, 0, 0, retry, () => 1),
    { status: 'pending', at: 400 },
  );
  assert.equal(
    afterFailure(20, 0, 0, retry, () => 1),
    { status: 'pending', at: 1000 },
  );
  assert.equal(
    afterFailure(5, 0, 9_900, retry, () => 1),
    { status: 'pending', at: 10_000 },
  );
  assert.equal(
    afterFailure(6, 0, 10_000, retry, () => 1),
    { status: 'dead' },
  );
});

test('a webhook gets the listed event types of the listed rooms, never a DM', () => {
  const msg = (target: Record<string, unknown>) =>
    ({ id: 'e', type: 'message.created', network_id: 'n', created_at: '', message: { target } }) as unknown as ServiceEvent;
  const w = { events: ['message.created'], rooms: ['ops'] };
  assert.ok(matches(w, msg({ kind: 'room', room_id: 'ops' })));
  assert.ok(matches(w, msg({ kind: 'thread', room_id: 'ops', thread_id: 't' })));
  assert.not.ok(matches(w, msg({ kind: 'room', room_id: 'general' })));
  assert.not.ok(matches({ events: ['*'] }, msg({ kind: 'dm', dm_id: 'd' })));
  assert.not.ok(matches({ events: ['room.created'] }, msg({ kind: 'room', room_id: 'ops' })));
});

test.run();
