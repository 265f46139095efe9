// Store.decide, the one way a write that depends on reads is decided, on every backend: memory and
// sqlite decide once on their current reads; Postgres decides first on the rooms and agents it
// kept and, when one changed before the write committed (or the decision came to anything but its
// own write), decides again on fresh reads, writing exactly once.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/open.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/index.js';
import type { Decide, DecisionReads, Store, WriteOp, WriteResult } from '../../src/store/types.js';
import { freshSchema, sql, type PgSchema } from '../helpers/pg.js';
import { createRoom, msg, send } from '../helpers/store-fixtures.js';

/** A decision that sends `id` into r1 when the room has `member`, else refuses; it records the members it saw each time. */
function sendIfMember(id: string, member: string, seen: string[][]): Decide<string> {
  return async (reads: DecisionReads) => {
    const room = await reads.room('r1');
    seen.push(room ? [...room.members] : []);
    if (!room?.members.includes(member)) throw new Error(`${member} is not a member of r1`);
    return { write: [send(msg(id))], reply: (r: WriteResult) => (r.outcomes[0]?.op === 'message.insert' ? r.outcomes[0].status : 'none') };
  };
}

const writer = (store: Store, count: { n: number }) => (ops: WriteOp[]) => {
  count.n++;
  return store.write(ops);
};

for (const backend of ['memory', 'sqlite', 'postgres'] as const) {
  const test = suite(`Store.decide (${backend})`);
  let dir: string;
  let store: Store;
  let pgs: PgSchema | undefined;
  test.before.each(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-decide-'));
    pgs = backend === 'postgres' ? await freshSchema() : undefined;
    store = await openStore({
      backend,
      path: join(dir, 'svc.db'),
      checkpoint_bytes: 64 * 1024 * 1024,
      ...(pgs ? { url: pgs.url, schema: pgs.schema } : {}),
    });
    await store.write([createRoom('r1')]);
  });
  test.after.each(async () => {
    await store.close();
    await pgs?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a decision that writes is written once and answers from the write', async () => {
    const seen: string[][] = [];
    const writes = { n: 0 };
    assert.is(await store.decide(sendIfMember('m1', 'a1', seen), writer(store, writes)), 'stored');
    assert.is(writes.n, 1);
    assert.is((await store.getMessage('m1'))?.message.id, 'm1');
    assert.equal(seen[seen.length - 1], ['a1']);
  });

  test('a decision that answers without a write writes nothing', async () => {
    const writes = { n: 0 };
    const answer = await store.decide(
      async (reads) => ({ answer: (await reads.room('nope')) === undefined ? 'absent' : 'present' }),
      writer(store, writes),
    );
    assert.is(answer, 'absent');
    assert.is(writes.n, 0);
  });

  test('a refusal on current reads reaches the caller, with nothing written', async () => {
    const writes = { n: 0 };
    try {
      await store.decide(sendIfMember('m2', 'zed', []), writer(store, writes));
      assert.unreachable('refused');
    } catch (err) {
      assert.match((err as Error).message, 'zed is not a member of r1');
    }
    assert.is(writes.n, 0);
    assert.is(await store.getMessage('m2'), undefined);
  });

  test('an id already stored comes back as the stored outcome', async () => {
    await store.write([send(msg('m3'))]);
    assert.is(await store.decide(sendIfMember('m3', 'a1', []), writer(store, { n: 0 })), 'exists');
  });

  test.run();
}

const pg = suite('Store.decide (postgres): kept reads, then fresh ones when a version moved');
let pgs: PgSchema;
let a: PostgresStore;
pg.before.each(async () => {
  pgs = await freshSchema();
  a = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  await a.write([createRoom('r1')]);
});
pg.after.each(async () => {
  await a.close();
  await pgs.drop();
});
/** Changes r1's members with no event, as another instance's change this one has not read yet. */
const changedBehindTheFeed = (members: string) => sql(pgs.url, `UPDATE ${pgs.schema}.rooms SET members = '{${members}}' WHERE id = 'r1'`);

pg('a room changed after it was kept: the write is refused as stale, decided again on fresh reads, and written once', async () => {
  const seen: string[][] = [];
  const writes = { n: 0 };
  await a.decide(sendIfMember('warm', 'a1', seen), writer(a, writes));
  assert.is(writes.n, 1);
  // Still a member: the kept room (members a1) is out of date, so the stale write is decided again.
  await changedBehindTheFeed('a1,a2');
  assert.is(await a.decide(sendIfMember('m1', 'a1', seen), writer(a, writes)), 'stored');
  assert.equal(seen.slice(1), [['a1'], ['a1', 'a2']], 'decided on the kept room, then on the fresh one');
  assert.is(writes.n, 3, 'one write refused as stale, one that landed');
  const stored = await sql<{ id: string }>(pgs.url, `SELECT id FROM ${pgs.schema}.messages ORDER BY seq`);
  assert.equal(
    stored.map((r) => r.id),
    ['warm', 'm1'],
  );
});

pg('a refusal on kept reads is decided again on fresh ones: a member added since may send', async () => {
  const seen: string[][] = [];
  await a.decide(sendIfMember('warm', 'a1', seen), writer(a, { n: 0 }));
  await changedBehindTheFeed('a1,a9');
  assert.is(await a.decide(sendIfMember('m9', 'a9', seen), writer(a, { n: 0 })), 'stored');
  assert.equal(seen.slice(1), [['a1'], ['a1', 'a9']]);
});

pg('an unchanged kept room is not read again: one decision, one write', async () => {
  const seen: string[][] = [];
  const writes = { n: 0 };
  await a.decide(sendIfMember('warm', 'a1', seen), writer(a, writes));
  await a.decide(sendIfMember('m1', 'a1', seen), writer(a, writes));
  assert.is(seen.length, 2);
  assert.is(writes.n, 2);
});

pg.run();
