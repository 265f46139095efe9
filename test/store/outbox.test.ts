// The webhook outbox (#28 part 3) on every backend: a cursor per webhook and its deliveries,
// enqueued atomically, kept across a reopen; and the hooks `svc apply` declared.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/open.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { hooksPart } from '../../src/store/webhooks/applied/part.js';
import type { Store } from '../../src/store/types.js';
import { webhooksPart } from '../../src/store/webhooks/part.js';
import type { WebhookDelivery } from '../../src/store/webhooks/records.js';
import { freshSchema, sql } from '../helpers/pg.js';
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
    assert.is(await store.part(webhooksPart)!.cursor('w1'), undefined);
    await store.write([{ op: 'webhook.enqueue', webhook_id: 'w1', seq: 5, deliveries: [delivery('d1', 3), delivery('d2', 5)] }]);
    assert.is(await store.part(webhooksPart)!.cursor('w1'), 5);
    await store.write([{ op: 'webhook.delivery', delivery: delivery('d1', 3, { status: 'delivered', attempts: 2 }) }]);
    await store.write([{ op: 'webhook.enqueue', webhook_id: 'w1', seq: 7, deliveries: [delivery('d1', 3), delivery('d3', 7)] }]);
    assert.is(await store.part(webhooksPart)!.cursor('w1'), 7);
    const all = await store.part(webhooksPart)!.deliveries({ webhook_id: 'w1', order: 'oldest', limit: 10 });
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
    assert.equal(ids(await store.part(webhooksPart)!.deliveries({ webhook_id: 'w1', status: 'pending', order: 'oldest', limit: 10 })), [
      'a',
      'c',
    ]);
    assert.equal(ids(await store.part(webhooksPart)!.deliveries({ webhook_id: 'w1', order: 'newest', limit: 2 })), ['c', 'b']);
    assert.equal(ids(await store.part(webhooksPart)!.deliveries({ webhook_id: 'w1', id: 'b', order: 'oldest', limit: 1 })), ['b']);
    assert.equal(ids(await store.part(webhooksPart)!.deliveries({ webhook_id: 'w1', status: 'dead', order: 'oldest', limit: 10 })), ['b']);
  });

  // Issue 38 item 5: the worker's read. More deliveries waiting on a later retry than a batch
  // holds, with lower seqs than the due ones, must not hide those; the counts have no cap.
  const WAITING = 150;
  const later = '2026-01-01T01:00:00.000Z';
  const dueAndCounts = async () => {
    const ids = (l: WebhookDelivery[]) => l.map((d) => d.id);
    const due = await store.part(webhooksPart)!.deliveries({
      webhook_id: 'w1',
      status: 'pending',
      due_by: '2026-01-01T00:30:00.000Z',
      order: 'due',
      limit: 100,
    });
    return { due: ids(due), stats: await store.part(webhooksPart)!.stats('w1') };
  };
  const OLDEST = '2025-12-31T00:00:00.000Z';
  /** The longest due first; the same time in seq order. */
  const DUE = ['late-b', 'late-a', 'fresh'];
  const stats = (pending: number, next: string, oldest = OLDEST) => ({
    pending,
    dead: 1,
    next_attempt_at: next,
    oldest_pending_at: oldest,
  });

  test('the due read finds deliveries due by their next attempt past any number waiting, and the counts are exact', async () => {
    const waiting = Array.from({ length: WAITING }, (_, i) =>
      delivery(`wait-${String(i).padStart(3, '0')}`, i + 1, { next_attempt_at: later, created_at: OLDEST }),
    );
    await store.write([
      {
        op: 'webhook.enqueue',
        webhook_id: 'w1',
        seq: 400,
        deliveries: [
          ...waiting,
          delivery('fresh', 300, { next_attempt_at: '2026-01-01T00:20:00.000Z' }),
          delivery('late-a', 202, { next_attempt_at: '2026-01-01T00:10:00.000Z' }),
          delivery('late-b', 201, { next_attempt_at: '2026-01-01T00:10:00.000Z' }),
          delivery('gone', 301, { status: 'dead' }),
          delivery('other', 302, { webhook_id: 'w2' }),
        ],
      },
    ]);
    assert.equal(await dueAndCounts(), { due: DUE, stats: stats(WAITING + 3, '2026-01-01T00:10:00.000Z') });
    // A stored state replaces the time the read goes by: due earlier, then delivered.
    await store.write([{ op: 'webhook.delivery', delivery: delivery('wait-000', 1, { next_attempt_at: '2026-01-01T00:01:00.000Z' }) }]);
    assert.equal(await dueAndCounts(), {
      due: ['wait-000', ...DUE],
      stats: stats(WAITING + 3, '2026-01-01T00:01:00.000Z', '2026-01-01T00:00:00.000Z'),
    });
    await store.write([{ op: 'webhook.delivery', delivery: delivery('wait-000', 1, { status: 'delivered' }) }]);
    assert.equal(await dueAndCounts(), { due: DUE, stats: stats(WAITING + 2, '2026-01-01T00:10:00.000Z') });
    assert.equal(await store.part(webhooksPart)!.stats('nothing'), { pending: 0, dead: 0 });
    if (backend === 'memory') return;
    await store.close();
    store = await open();
    assert.equal(await dueAndCounts(), { due: DUE, stats: stats(WAITING + 2, '2026-01-01T00:10:00.000Z') });
  });

  const hook = (kind: 'webhook' | 'inbound_hook', id: string, n: number) => ({
    kind,
    id,
    body: JSON.stringify({ id, n }),
    applied_at: `2026-01-01T00:00:0${n}.000Z`,
  });

  test('applied hooks are stored whole, replaced by kind and id, removed, and listed by kind then id', async () => {
    assert.equal(await store.part(hooksPart)!.list(), []);
    await store.write([{ op: 'hooks.apply', put: [hook('webhook', 'b', 1), hook('inbound_hook', 'a', 1), hook('webhook', 'a', 1)] }]);
    assert.equal(await store.part(hooksPart)!.list(), [hook('inbound_hook', 'a', 1), hook('webhook', 'a', 1), hook('webhook', 'b', 1)]);
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
    assert.equal(await store.part(hooksPart)!.list(), [hook('inbound_hook', 'a', 1), hook('webhook', 'a', 2)]);
  });

  if (backend !== 'memory') {
    test('applied hooks survive closing and reopening the store', async () => {
      await store.write([{ op: 'hooks.apply', put: [hook('webhook', 'w', 3)] }]);
      await store.close();
      store = await open();
      assert.equal(await store.part(hooksPart)!.list(), [hook('webhook', 'w', 3)]);
    });

    test('the cursor and deliveries survive closing and reopening the store', async () => {
      await store.write([{ op: 'webhook.enqueue', webhook_id: 'w1', seq: 4, deliveries: [delivery('d1', 4)] }]);
      await store.close();
      store = await open();
      assert.is(await store.part(webhooksPart)!.cursor('w1'), 4);
      assert.equal(await store.part(webhooksPart)!.deliveries({ webhook_id: 'w1', order: 'oldest', limit: 5 }), [delivery('d1', 4)]);
    });
  }

  test.run();
}

// A store written before the due read (no next_attempt_at column, no index) gets both when opened,
// the column filled from each delivery's body: a delivery waiting then is found by the due read.
const upgrade = suite('the due read on a store from before it');
const upgraded = async (open: () => Promise<Store>, setBack: () => Promise<void>) => {
  let store = await open();
  await store.write([
    {
      op: 'webhook.enqueue',
      webhook_id: 'w1',
      seq: 3,
      deliveries: [delivery('waits', 1, { next_attempt_at: '2026-01-01T01:00:00.000Z' }), delivery('due', 2)],
    },
  ]);
  await store.close();
  await setBack();
  store = await open();
  try {
    const due = await store.part(webhooksPart)!.deliveries({
      webhook_id: 'w1',
      status: 'pending',
      due_by: '2026-01-01T00:30:00.000Z',
      order: 'due',
      limit: 10,
    });
    assert.equal(
      due.map((d) => d.id),
      ['due'],
    );
    assert.equal((await store.part(webhooksPart)!.stats('w1')).next_attempt_at, '2026-01-01T00:00:00.000Z');
  } finally {
    await store.close();
  }
};

upgrade('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-outbox-upgrade-'));
  const file = join(dir, 'svc.db');
  try {
    await upgraded(
      () => openStore({ backend: 'sqlite', path: file, checkpoint_bytes: 64 * 1024 * 1024 }),
      async () => {
        const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
        const db = new SQL.Database(readFileSync(file));
        db.run('DROP INDEX webhook_deliveries_due');
        db.run('ALTER TABLE webhook_deliveries DROP COLUMN next_attempt_at');
        // The due read is the webhooks part's second version (store/webhooks/sqlite.ts).
        db.run("UPDATE meta SET value = '1' WHERE key = 'part:webhooks'");
        writeFileSync(file, db.export());
        db.close();
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

upgrade('postgres', async () => {
  const pgs = await freshSchema();
  try {
    await upgraded(
      () => openPostgresStore({ url: pgs.url, schema: pgs.schema }),
      async () => {
        await sql(pgs.url, `ALTER TABLE ${pgs.schema}.webhook_deliveries DROP COLUMN next_attempt_at`);
        // The due read is the webhooks part's second version (store/webhooks/postgres.ts).
        await sql(pgs.url, `UPDATE ${pgs.schema}.meta SET value = '1' WHERE key = 'part:webhooks'`);
      },
    );
  } finally {
    await pgs.drop();
  }
});

upgrade.run();
