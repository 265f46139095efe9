// The webhook outbox (src/store/webhooks/) and the hooks `svc apply` declared (src/store/webhooks/applied/) on
// every backend, through the store as the server uses it: what one batch writes with the core's
// ops and other parts' (each part's effects applied by its own adapter), what each backend reads
// back (live and after a reopen: sqlite replays its journal through the parts), that a refused
// batch writes none of them, that each part claims only its own effects, that a store opened
// without them neither decides their ops nor makes their tables, and that a database made before
// the parts kept their own versions opens with its rows as they were.
// test/store/outbox.test.ts holds the reads' rules one write at a time.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Effect } from '../../src/store/effects.js';
import { MemoryHooks } from '../../src/store/webhooks/applied/memory.js';
import type { HookEffect, HooksApplyOp } from '../../src/store/webhooks/applied/ops.js';
import { hooksPart } from '../../src/store/webhooks/applied/part.js';
import { postgresHooks } from '../../src/store/webhooks/applied/postgres.js';
import { sqliteHooks } from '../../src/store/webhooks/applied/sqlite.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { MemoryWebhooks } from '../../src/store/webhooks/memory.js';
import type { WebhookEffect, WebhookEnqueueOp } from '../../src/store/webhooks/ops.js';
import { webhooksPart } from '../../src/store/webhooks/part.js';
import { postgresWebhooks } from '../../src/store/webhooks/postgres.js';
import type { WebhookDelivery } from '../../src/store/webhooks/records.js';
import { sqliteWebhooks } from '../../src/store/webhooks/sqlite.js';
import { freshSchema, sql, type PgSchema } from '../helpers/pg.js';
import { codeOf, createRoom, msg, send } from '../helpers/store-fixtures.js';
import { BACKENDS, type Backend, storePerTest } from '../helpers/store-per-test.js';

const T0 = '2026-01-01T00:00:00.000Z';
const delivery = (id: string, webhook_id: string, seq: number, extra: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id,
  webhook_id,
  seq,
  event_type: 'message.created',
  payload: JSON.stringify({ id, seq }),
  status: 'pending',
  attempts: 0,
  created_at: T0,
  next_attempt_at: T0,
  ...extra,
});
const enqueue = (webhook_id: string, seq: number, deliveries: WebhookDelivery[]): WebhookEnqueueOp => ({
  op: 'webhook.enqueue',
  webhook_id,
  seq,
  deliveries,
});
const hook = (kind: 'webhook' | 'inbound_hook', id: string, n: number) => ({ kind, id, body: `{"n":${n}}`, applied_at: T0 });
const applyHooks = (put: ReturnType<typeof hook>[], remove: HooksApplyOp['remove'] = []): HooksApplyOp => ({
  op: 'hooks.apply',
  put,
  remove,
});

/** What a store holds of both parts, in one comparable value. */
async function held(store: Store) {
  const outbox = store.part(webhooksPart)!;
  const rows = async (id: string) =>
    (await outbox.deliveries({ webhook_id: id, order: 'oldest', limit: 10 })).map((d) => `${d.id} ${d.status} ${d.attempts}`);
  return {
    cursors: [await outbox.cursor('w1'), await outbox.cursor('w2')],
    w1: await rows('w1'),
    w2: await rows('w2'),
    stats: await outbox.stats('w1'),
    hooks: (await store.part(hooksPart)!.list()).map((h) => `${h.kind} ${h.id} ${h.body}`),
  };
}

for (const backend of BACKENDS) {
  const test = suite(`the webhook outbox and applied hooks (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-webhooks-contract-', async (s) => {
    store = s;
    await store.write([createRoom('r1')]);
  });

  test('one batch of the core and both parts writes each through its own part', async () => {
    const r = await store.write([
      send(msg('m1')),
      enqueue('w1', 3, [delivery('d1', 'w1', 2), delivery('d2', 'w1', 3)]),
      applyHooks([hook('webhook', 'a', 1), hook('inbound_hook', 'a', 1)]),
      enqueue('w2', 3, [delivery('e1', 'w2', 3)]),
      { op: 'webhook.delivery', delivery: delivery('d0', 'w1', 1, { status: 'dead', attempts: 4 }) },
      // Removed and put in one batch: replaced, one effect per row.
      applyHooks([hook('webhook', 'a', 2)], [{ kind: 'webhook', id: 'a' }]),
    ]);
    assert.equal(
      r.outcomes.map((o) => o.op),
      ['message.insert', 'webhook.enqueue', 'hooks.apply', 'webhook.enqueue', 'webhook.delivery', 'hooks.apply'],
    );
    assert.equal(await held(store), {
      cursors: [3, 3],
      w1: ['d0 dead 4', 'd1 pending 0', 'd2 pending 0'],
      w2: ['e1 pending 0'],
      stats: { pending: 2, dead: 1, next_attempt_at: T0, oldest_pending_at: T0 },
      hooks: ['inbound_hook a {"n":1}', 'webhook a {"n":2}'],
    });
    assert.is((await store.getMessage('m1'))?.message.id, 'm1');
  });

  test('a refused batch writes none of its outbox or hooks', async () => {
    const code = await codeOf(() =>
      store.write([enqueue('w1', 9, [delivery('d1', 'w1', 9)]), applyHooks([hook('webhook', 'x', 1)]), createRoom('r1')]),
    );
    assert.is(code, 'room_exists');
    assert.equal(await held(store), { cursors: [undefined, undefined], w1: [], w2: [], stats: { pending: 0, dead: 0 }, hooks: [] });
  });

  if (backend !== 'memory') {
    test("the backend's parts apply the same effects again after a reopen", async () => {
      await store.write([enqueue('w1', 2, [delivery('d1', 'w1', 1), delivery('d2', 'w1', 2)]), applyHooks([hook('webhook', 'a', 1)])]);
      await store.write([
        { op: 'webhook.delivery', delivery: delivery('d1', 'w1', 1, { status: 'delivered', attempts: 1 }) },
        enqueue('w2', 5, []),
        applyHooks([hook('inbound_hook', 'b', 1)], [{ kind: 'webhook', id: 'a' }]),
      ]);
      const before = await held(store);
      await store.close();
      store = await open();
      assert.equal(await held(store), before);
      assert.equal(before.hooks, ['inbound_hook b {"n":1}']);
      assert.equal(before.w1, ['d1 delivered 1', 'd2 pending 0']);
    });
  }

  test.run();
}

const parts = suite('the outbox and hooks parts claim only their own effects');
const other: Effect = { op: 'pairing.delete', pairing_id: 'p1' };
const cursor: Effect = { op: 'webhook.cursor.put', webhook_id: 'w1', seq: 4 };
const add: Effect = { op: 'webhook.delivery.add', delivery: delivery('d1', 'w1', 4) };
const replace: Effect = { op: 'webhook.delivery.put', delivery: delivery('d1', 'w1', 4, { status: 'dead' }) };
const hookPut: Effect = { op: 'hook.put', hook: hook('webhook', 'a', 1) };
const hookDelete: Effect = { op: 'hook.delete', kind: 'webhook', id: 'a' };

parts('owns', () => {
  for (const p of [webhooksPart, hooksPart]) assert.is(p.owns(other), false);
  assert.ok([cursor, add, replace].every((e) => webhooksPart.owns(e) && !hooksPart.owns(e)));
  assert.ok([hookPut, hookDelete].every((e) => hooksPart.owns(e) && !webhooksPart.owns(e)));
});

parts('memory', async () => {
  const w = new MemoryWebhooks();
  for (const e of [cursor, add, replace, add]) w.apply(structuredClone(e) as WebhookEffect);
  assert.is(await w.reads.cursor('w1'), 4);
  assert.equal(
    (await w.reads.deliveries({ webhook_id: 'w1', order: 'oldest', limit: 5 })).map((d) => d.status),
    ['dead'],
  );
  const h = new MemoryHooks();
  h.apply(hookPut as HookEffect);
  assert.is((await h.reads.list()).length, 1);
  h.apply(hookDelete as HookEffect);
  assert.equal(await h.reads.list(), []);
});

parts('sqlite', () => {
  const ran: string[] = [];
  const run = (text: string) => void ran.push(text.split(' ').slice(0, 3).join(' '));
  for (const e of [cursor, add, replace]) sqliteWebhooks.apply(run, e as WebhookEffect);
  for (const e of [hookPut, hookDelete]) sqliteHooks.apply(run, e as HookEffect);
  assert.equal(ran, [
    'INSERT INTO webhook_cursors',
    'INSERT INTO webhook_deliveries',
    'INSERT INTO webhook_deliveries',
    'INSERT INTO applied_hooks',
    'DELETE FROM applied_hooks',
  ]);
});

parts('postgres', () => {
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  const stmt = { param, row: (p: unknown[]) => `(${p.map(param).join(', ')})`, table: (n: string) => `s.${n}` };
  const ctes = [
    ...postgresWebhooks.ctes([cursor, add, { op: 'webhook.delivery.put', delivery: delivery('d2', 'w1', 5) }] as WebhookEffect[], stmt),
    ...postgresHooks.ctes([hookPut, { ...hookDelete, id: 'b' }] as HookEffect[], stmt),
  ];
  assert.equal(
    ctes.map((c) => c.split(' ').slice(0, 3).join(' ')),
    [
      'INSERT INTO s.webhook_cursors',
      'INSERT INTO s.webhook_deliveries',
      'INSERT INTO s.webhook_deliveries',
      'INSERT INTO s.applied_hooks',
      'DELETE FROM s.applied_hooks',
    ],
  );
  assert.ok(ctes[1]!.endsWith('DO NOTHING') && ctes[2]!.includes('DO UPDATE'));
  // One row written twice in a batch: one statement piece, the one applying them in order leaves.
  const twice = postgresWebhooks.ctes([add, replace, add, cursor, cursor] as WebhookEffect[], stmt);
  assert.is(twice.length, 2);
  assert.ok(twice[0]!.includes('DO UPDATE'));
  assert.is(postgresHooks.ctes([hookPut, hookDelete] as HookEffect[], stmt).length, 1);
});

parts.run();

/** A store of `backend` on fresh files or a fresh schema, opened with `parts`, and how to drop them. */
async function scratch(backend: Backend) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-parts-'));
  const file = join(dir, 'svc.db');
  const pgs: PgSchema | undefined = backend === 'postgres' ? await freshSchema() : undefined;
  const cfg = { backend, path: file, checkpoint_bytes: 64 * 1024 * 1024, ...(pgs ? { url: pgs.url, schema: pgs.schema } : {}) };
  return {
    file,
    pgs,
    open: (withParts?: boolean) => openStore(cfg, undefined, withParts === false ? [] : undefined),
    drop: async () => {
      await pgs?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The tables of a store's sqlite file or Postgres schema. */
async function tables(s: Awaited<ReturnType<typeof scratch>>): Promise<string[]> {
  if (s.pgs)
    return (await sql(s.pgs.url, 'SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [s.pgs.schema])).map((r) =>
      String(r.table_name),
    );
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(s.file));
  try {
    return (db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map((r) => String(r[0]));
  } finally {
    db.close();
  }
}

const OWN_TABLES = ['applied_hooks', 'webhook_cursors', 'webhook_deliveries'];

const without = suite('a store opened without the parts');
for (const backend of BACKENDS) {
  without(backend, async () => {
    const s = await scratch(backend);
    try {
      const store = await s.open(false);
      try {
        assert.is(store.part(webhooksPart), undefined);
        assert.is(store.part(hooksPart), undefined);
        for (const op of [enqueue('w1', 1, []), applyHooks([hook('webhook', 'a', 1)])])
          assert.is(await codeOf(() => store.write([op])), 'corrupt', op.op);
      } finally {
        await store.close();
      }
      if (backend === 'memory') return;
      const made = await tables(s);
      assert.ok(made.includes('messages'), made.join(', '));
      for (const t of OWN_TABLES) assert.not.ok(made.includes(t), `${t} in ${made.join(', ')}`);
    } finally {
      await s.drop();
    }
  });
}
without.run();

// A database made before the parts kept their own versions: the core's migrations made the tables
// (with the due column and index) and no `part:` version is recorded. Opened with the parts, each
// runs its versions over what is there (IF NOT EXISTS, and a fill that checks for the column), and
// the rows are read as they were written.
const before = suite('a database from before the parts');
for (const backend of ['sqlite', 'postgres'] as const) {
  before(backend, async () => {
    const s = await scratch(backend);
    try {
      let store = await s.open();
      await store.write([
        enqueue('w1', 2, [delivery('d1', 'w1', 1, { next_attempt_at: '2026-01-01T01:00:00.000Z' }), delivery('d2', 'w1', 2)]),
        applyHooks([hook('webhook', 'a', 1)]),
      ]);
      const was = await held(store);
      await store.close();
      if (s.pgs) await sql(s.pgs.url, `DELETE FROM ${s.pgs.schema}.meta WHERE key IN ('part:webhooks', 'part:hooks')`);
      else {
        const SQL = await initSqlJs();
        const db = new SQL.Database(readFileSync(s.file));
        db.run("DELETE FROM meta WHERE key IN ('part:webhooks', 'part:hooks')");
        writeFileSync(s.file, db.export());
        db.close();
      }
      store = await s.open();
      try {
        assert.equal(await held(store), was);
        const due = await store.part(webhooksPart)!.deliveries({ webhook_id: 'w1', status: 'pending', due_by: T0, order: 'due', limit: 5 });
        assert.equal(
          due.map((d) => d.id),
          ['d2'],
        );
      } finally {
        await store.close();
      }
    } finally {
      await s.drop();
    }
  });
}
before.run();
