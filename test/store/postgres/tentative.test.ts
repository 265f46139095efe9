// Tentative reads on Postgres: the rooms and agents a send is decided on are kept between requests
// with their row versions, and the write checks those versions as it commits. A message decided on
// a room or agent that another instance changed since is refused as `stale` with nothing written,
// on the group commit (room messages) and on the long way (threads), and the messages grouped with
// it are stored all the same.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/index.js';
import type { MessageInsertOp, StoredEvent } from '../../../src/store/types.js';
import type { BasedInsert, Basis } from '../../../src/store/postgres/basis.js';
import { freshSchema, sql, type PgSchema } from '../../helpers/pg.js';
import { claim, codeOf, createRoom, inThread, members, msg, send, settled, waitFor } from '../../helpers/store-fixtures.js';

const test = suite('store (postgres): tentative reads and the basis of a write');
let pgs: PgSchema;
let a: PostgresStore;
let b: PostgresStore;

test.before.each(async () => {
  pgs = await freshSchema();
  a = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  b = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  await a.write([createRoom('r1')]);
});
test.after.each(async () => {
  await Promise.all([a.close(), b.close()]);
  await pgs.drop();
});

const decidedOn = (op: MessageInsertOp, ...basis: Basis[]): BasedInsert => ({ ...op, basis });
/** Waits until `a`'s feed has delivered everything stored (so its room and agent events have been seen). */
const caughtUp = async () => {
  const last = await b.lastEventSeq();
  await waitFor(() => a.feed.head >= last, 'a has read every event');
};
const storedIds = async () => (await sql<{ id: string }>(pgs.url, `SELECT id FROM ${pgs.schema}.messages ORDER BY seq`)).map((r) => r.id);

test('a room read tentatively is kept, and read again once the feed announces a change', async () => {
  const first = await a.tentative.room('r1');
  assert.ok(first.record);
  assert.type(first.basis.version, 'string');
  assert.ok((await a.tentative.room('r1')) === first, 'the second read is the kept one');
  await b.write([members('r1', ['a2'])]);
  await caughtUp();
  const again = await a.tentative.room('r1');
  assert.equal(again.record!.members, ['a1', 'a2']);
  assert.is.not(again.basis.version, first.basis.version);
  const absent = await a.tentative.agent('nobody');
  assert.equal(absent, { record: undefined, basis: { kind: 'agent', id: 'nobody', version: null } });
});

test('a room message decided on a kept room is published with that room, so its delivery reads none; one decided again on fresh reads without it', async () => {
  const got: StoredEvent[] = [];
  a.feed.subscribe(a.feed.head, (evs) => got.push(...evs));
  /** A send of `id` decided on room r1 as `a` reads it. */
  const decideSend = (id: string) =>
    a.decide<string>(
      async (reads) => {
        const room = await reads.room('r1');
        if (!room) return { answer: 'no room' };
        return { write: [send(msg(id))], reply: () => 'sent' };
      },
      (ops) => a.write(ops),
    );
  assert.is(await decideSend('kept'), 'sent');
  const kept = got.find((e) => e.event.message?.id === 'kept');
  assert.ok(kept?.room, 'the event carries the room it was decided on');
  assert.equal(kept.room, await a.getRoom('r1'));
  // The room changed after `a` kept it: the write is refused as stale and decided again on fresh reads.
  await b.write([members('r1', ['a2'])]);
  assert.is(await decideSend('fresh'), 'sent');
  await waitFor(() => got.some((e) => e.event.message?.id === 'fresh'), 'the second send delivered');
  const fresh = got.find((e) => e.event.message?.id === 'fresh')!;
  // Never the record from before the change; a room read afresh, when there is one, has the new member.
  assert.ok(fresh.room === undefined || fresh.room.members.includes('a2'), JSON.stringify(fresh.room));
});

test('a room message decided on a room changed since is refused as stale; the messages grouped with it are stored', async () => {
  const old = (await a.tentative.room('r1')).basis;
  await b.write([members('r1', ['a2'])]);
  await caughtUp();
  const current = (await a.tentative.room('r1')).basis;
  // Written together, so they share group commits: the stale one must not take the others down.
  const writes = [
    a.write([send(msg('before'))]),
    a.write([decidedOn(send(msg('stale')), old)]),
    a.write([decidedOn(send(msg('current')), current)]),
    a.write([send(msg('after'))]),
  ];
  assert.equal(await settled(writes), ['ok', 'stale', 'ok', 'ok']);
  assert.equal((await storedIds()).sort(), ['after', 'before', 'current']);
  // Nothing numbered for the refused one: the events stay dense.
  const events = await a.eventsAfter(0, 100);
  assert.equal(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
  );
  assert.not.ok(events.some((e) => e.event.message?.id === 'stale'));
});

test('a thread message (the long way) decided on a changed room is refused as stale and creates no thread', async () => {
  const old = (await a.tentative.room('r1')).basis;
  await b.write([members('r1', [], ['a1'])]);
  assert.is(await codeOf(() => a.write([decidedOn(send(msg('t-stale', inThread('th1'))), old)])), 'stale');
  assert.is(await a.getThread('th1'), undefined);
  assert.equal(await storedIds(), []);
});

test('a sender read as absent and claimed since makes the message stale; one still absent does not', async () => {
  const room = (await a.tentative.room('r1')).basis;
  const h1 = (await a.tentative.agent('h1')).basis;
  const h2 = (await a.tentative.agent('h2')).basis;
  await b.write([claim('h1')]);
  assert.is(await codeOf(() => a.write([decidedOn(send(msg('by-h1', undefined, 'h1')), room, h1)])), 'stale');
  await a.write([decidedOn(send(msg('by-h2', undefined, 'h2')), room, h2)]);
  assert.equal(await storedIds(), ['by-h2']);
});

test('a record changed behind the feed (no event yet) stays kept until forgotten; its write is refused meanwhile', async () => {
  const kept = await a.tentative.room('r1');
  // Changed with no event, as a change another instance made and this one has not read yet.
  await sql(pgs.url, `UPDATE ${pgs.schema}.rooms SET members = array_append(members, 'a3') WHERE id = 'r1'`);
  assert.ok((await a.tentative.room('r1')) === kept, 'nothing announced the change');
  assert.is(await codeOf(() => a.write([decidedOn(send(msg('m1')), kept.basis)])), 'stale');
  a.tentative.forget([kept.basis]);
  const fresh = await a.tentative.room('r1');
  assert.equal(fresh.record!.members, ['a1', 'a3']);
  await a.write([decidedOn(send(msg('m2')), fresh.basis)]);
  assert.equal(await storedIds(), ['m2']);
});

test.run();
