// The sqlite store keeps rooms and agents parsed once and frozen (queries.ts): a decision and the
// events' audiences share those records, and a send's events carry the room they were committed
// in, as on Postgres; the public reads still hand out copies. On a real sqlite file.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import type { DecisionReads, RoomRecord, StoredEvent } from '../../../src/store/types.js';
import { createRoom, members, msg, send } from '../../helpers/store-fixtures.js';

const test = suite<{ dir: string; store: SqliteStore }>('sqlite store: shared rooms and agents');
test.before.each(async (ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'svc-shared-'));
  ctx.store = await openSqliteStore({ path: join(ctx.dir, 'svc.db') });
  await ctx.store.write([createRoom('r1', { members: ['a1', 'x'] })]);
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** The reads a decision gets. */
const decisionReads = (store: SqliteStore): Promise<DecisionReads> =>
  store.decide(
    async (reads) => ({ answer: reads }),
    () => Promise.reject(new Error('nothing to write')),
  );

test("a send's events carry the room they were committed in; a write that changes the room gives none", async ({ store }) => {
  const got: StoredEvent[] = [];
  store.feed.subscribe(store.feed.head, (evs) => got.push(...evs));
  await store.write([send(msg('m1'))]);
  await store.write([members('r1', ['y'])]);
  await store.write([send(msg('m2'))]);
  assert.equal(
    got.map((e) => [e.event.message?.id ?? e.event.type, e.room?.members]),
    [
      ['m1', ['a1', 'x']],
      ['room.members.updated', undefined],
      ['m2', ['a1', 'x', 'y']],
    ],
  );
});

test('a decision reads the one frozen record; the public reads are copies the caller may change', async ({ store }) => {
  const reads = await decisionReads(store);
  const room = (await reads.room('r1')) as RoomRecord;
  assert.ok((await reads.room('r1')) === room, 'the same record');
  assert.ok(Object.isFrozen(room) && Object.isFrozen(room.members));
  assert.throws(() => room.members.push('intruder'));
  const copy = (await store.getRoom('r1'))!;
  copy.members.push('mine');
  assert.equal((await reads.room('r1'))!.members, ['a1', 'x']);
  // A write of the room drops the record: the next read is the new one.
  await store.write([members('r1', ['y'])]);
  const after = (await reads.room('r1'))!;
  assert.ok(after !== room);
  assert.equal(after.members, ['a1', 'x', 'y']);
  assert.equal(room.members, ['a1', 'x'], 'a record handed out never changes');
});

test.run();
