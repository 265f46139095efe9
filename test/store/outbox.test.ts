// The webhook outbox (#28 part 3) on every backend: a cursor per webhook and its deliveries,
// enqueued atomically, kept across a reopen; and the hooks `svc apply` declared.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store, WebhookDelivery } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';

const delivery = (id: string, seq: number, extra: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id,
  webhook_id: 'w1',
  seq,
  event_type: 'message.created',
  payload: JSON.stringify({ type: 'message.created', n: seq }),
  status: 'pending',
  attempts: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  next_attempt_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

for (const backend of BACKENDS) {
  const test = suite(`webhook outbox (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-outbox-', (s) => {
    store = s;
  });

  test('an enqueue moves the cursor and stores its deliveries; a stored id is left as it is', async () => {
    assert.is(await store.webhookCursor('w1'), undefined);
    await store.write([{ op: 'webhook.enqueue', webhook_id: 'w1', seq: 5, deliveries: [delivery('d1', 3), delivery('d2', 5)] }]);
    assert.is(await store.webhookCursor('w1'), 5);
    await store.write([{ op: 'webhook.delivery', delivery: delivery('d1', 3, { status: 'delivered', attempts: 2 }) }]);
    await store.write([{ op: 'webhook.enqueue', webhook_id: 'w1', seq: 7, deliveries: [delivery('d1', 3), delivery('d3', 7)] }]);
    assert.is(await store.webhookCursor('w1'), 7);
    const all = await store.webhookDeliveries({ webhook_id: 'w1', order: 'oldest', limit: 10 });
    assert.equal(
      all.map((d) => [d.id, d.status, d.attempts]),
      [
        ['d1', 'delivered', 2],
        ['d2', 'pending', 0],
        ['d3', 'pending', 0],
      ],
    );
    assert.equal(all[1], delivery('d2', 5));
  });

  test('deliveries are read by status, by id, newest or oldest first, limited', async () => {
    await store.write([
      {
        op: 'webhook.enqueue',
        webhook_id: 'w1',
        seq: 9,
        deliveries: [delivery('a', 1), delivery('b', 2, { status: 'dead' }), delivery('c', 3), delivery('x', 4, { webhook_id: 'w2' })],
      },
    ]);
    const ids = (l: WebhookDelivery[]) => l.map((d) => d.id);
    assert.equal(ids(await store.webhookDeliveries({ webhook_id: 'w1', status: 'pending', order: 'oldest', limit: 10 })), ['a', 'c']);
    assert.equal(ids(await store.webhookDeliveries({ webhook_id: 'w1', order: 'newest', limit: 2 })), ['c', 'b']);
    assert.equal(ids(await store.webhookDeliveries({ webhook_id: 'w1', id: 'b', order: 'oldest', limit: 1 })), ['b']);
    assert.equal(ids(await store.webhookDeliveries({ webhook_id: 'w1', status: 'dead', order: 'oldest', limit: 10 })), ['b']);
  });

  const hook = (kind: 'webhook' | 'inbound_hook', id: string, n: number) => ({
    kind,
    id,
    body: JSON.stringify({ id, n }),
    applied_at: `2026-01-01T00:00:0${n}.000Z`,
  });

  test('applied hooks are stored whole, replaced by kind and id, removed, and listed by kind then id', async () => {
    assert.equal(await store.appliedHooks(), []);
    await store.write([{ op: 'hooks.apply', put: [hook('webhook', 'b', 1), hook('inbound_hook', 'a', 1), hook('webhook', 'a', 1)] }]);
    assert.equal(await store.appliedHooks(), [hook('inbound_hook', 'a', 1), hook('webhook', 'a', 1), hook('webhook', 'b', 1)]);
    // The same id of the other kind is another hook; a remove and a put of one id in a batch is a replace.
    await store.write([
      {
        op: 'hooks.apply',
        put: [hook('webhook', 'a', 2)],
        remove: [
          { kind: 'webhook', id: 'a' },
          { kind: 'webhook', id: 'b' },
        ],
      },
    ]);
    assert.equal(await store.appliedHooks(), [hook('inbound_hook', 'a', 1), hook('webhook', 'a', 2)]);
  });

  if (backend !== 'memory') {
    test('applied hooks survive closing and reopening the store', async () => {
      await store.write([{ op: 'hooks.apply', put: [hook('webhook', 'w', 3)] }]);
      await store.close();
      store = await open();
      assert.equal(await store.appliedHooks(), [hook('webhook', 'w', 3)]);
    });

    test('the cursor and deliveries survive closing and reopening the store', async () => {
      await store.write([{ op: 'webhook.enqueue', webhook_id: 'w1', seq: 4, deliveries: [delivery('d1', 4)] }]);
      await store.close();
      store = await open();
      assert.is(await store.webhookCursor('w1'), 4);
      assert.equal(await store.webhookDeliveries({ webhook_id: 'w1', order: 'oldest', limit: 5 }), [delivery('d1', 4)]);
    });
  }

  test.run();
}
