// Another instance's group commits reach a feed in their notifications (notify-payload.ts): the
// events as stored, with the rooms their messages were decided on, delivered without reading them
// back; a payload that would not fit, or a write that is not a group commit, is read by cursor, in
// order with the rest. Two stores on one real PostgreSQL schema.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/index.js';
import { notifyTail } from '../../../src/store/postgres/notify-payload.js';
import type { BasedInsert } from '../../../src/store/postgres/basis.js';
import type { Message } from '../../../src/protocol/types.js';
import type { RoomRecord } from '../../../src/store/types.js';
import { collect, twoInstances } from '../../helpers/pg-instances.js';
import { freshSchema, type PgSchema } from '../../helpers/pg.js';
import { createRoom, members, msg, send, waitFor } from '../../helpers/store-fixtures.js';

const test = suite('store (postgres): events carried by notifications');
let pgs: PgSchema;
let a: PostgresStore;
let b: PostgresStore;

test.before.each(async () => {
  pgs = await freshSchema();
  [a, b] = await twoInstances(pgs);
  await waitFor(() => a.feed.othersListen && b.feed.othersListen, 'the two instances to greet each other');
  await a.write([createRoom('r1', { members: ['a1', 'x'] })]);
  await waitFor(() => b.feed.head >= 1, 'b at the first event');
});
test.after.each(async () => {
  await Promise.all([a.close(), b.close()]);
  await pgs.drop();
});

/** A send decided on `room` (as PostgresStore.decide marks it). */
const decidedSend = (m: Message, room: RoomRecord): BasedInsert => ({ ...send(m), rooms: [room] });

test("another instance's sends arrive from their notifications, as stored and with their room, without a read", async () => {
  const room = (await a.getRoom('r1'))!;
  const got = collect(b);
  const [reads, carried] = [b.feed.reads, b.feed.carried];
  for (let i = 0; i < 20; i++) await a.write([decidedSend(msg(`m${i}`), room)]);
  await waitFor(() => got.length >= 20, 'b to deliver the 20 sends');
  assert.equal(
    got.map((e) => e.seq),
    Array.from({ length: 20 }, (_, i) => i + 2),
  );
  assert.is(b.feed.carried - carried, 20);
  // The 2 s safety poll may have read once; a read per notification would be 20.
  assert.ok(b.feed.reads - reads <= 1, `b read ${b.feed.reads - reads} times`);
  assert.equal(
    got.map((e) => e.event),
    (await b.eventsAfter(1, 100)).map((e) => e.event),
    'the events are what a read gives',
  );
  assert.ok(got.every((e) => e.room?.id === 'r1' && e.room.members.join() === 'a1,x'));
});

test('a commit whose events do not fit, or a write that is not a group commit, is read, in order with the carried ones', async () => {
  const got = collect(b);
  const carried = b.feed.carried;
  const big = msg('big');
  big.parts = [{ kind: 'text', text: 'x'.repeat(9000) }];
  await a.write([send(msg('small1'))]);
  await a.write([send(big)]);
  await a.write([members('r1', ['y'])]);
  await a.write([send(msg('small2'))]);
  await waitFor(() => got.length >= 4, 'b to deliver all four');
  assert.equal(
    got.map((e) => e.event.message?.id ?? e.event.type),
    ['small1', 'big', 'room.members.updated', 'small2'],
  );
  assert.equal(
    got.map((e) => e.seq),
    [2, 3, 4, 5],
  );
  assert.is((got[1]!.event.message!.parts[0] as { text: string }).text.length, 9000);
  // small2 came right behind a gap the read had to fill: carried or read, never out of order.
  assert.ok(b.feed.carried - carried >= 1, 'small1 was carried');
});

test('a room carried again unchanged is parsed once: one frozen record for every event that carries it', async () => {
  const room = (await a.getRoom('r1'))!;
  const got = collect(b);
  for (let i = 0; i < 3; i++) await a.write([decidedSend(msg(`same${i}`), room)]);
  await a.write([members('r1', ['y'])]);
  const changed = (await a.getRoom('r1'))!;
  await a.write([decidedSend(msg('after'), changed)]);
  await waitFor(() => got.length >= 5, 'b to deliver the five events');
  const rooms = got.filter((e) => e.event.type === 'message.created').map((e) => e.room!);
  assert.is(rooms.length, 4);
  assert.ok(rooms[0] === rooms[1] && rooms[1] === rooms[2], 'the same record for the same room');
  assert.ok(Object.isFrozen(rooms[0]) && Object.isFrozen(rooms[0]!.members), 'frozen: no reader changes what the next one sees');
  assert.ok(rooms[3] !== rooms[0], 'a changed room is a new record');
  assert.equal(
    [rooms[0]!.members, rooms[3]!.members],
    [
      ['a1', 'x'],
      ['a1', 'x', 'y'],
    ],
  );
});

test('an instance on its own carries no events in its notifications, until another greets it', async () => {
  const lone = await freshSchema();
  const c = await openPostgresStore({ url: lone.url, schema: lone.schema });
  try {
    await c.write([createRoom('r1')]);
    await c.write([decidedSend(msg('m1'), (await c.getRoom('r1'))!)]);
    assert.is(c.feed.othersListen, false, 'its own writes and greeting are not another instance');
    const d = await openPostgresStore({ url: lone.url, schema: lone.schema });
    try {
      // d greets as it begins listening; c answers, so d knows of c before c writes anything.
      await waitFor(() => c.feed.othersListen && d.feed.othersListen, 'the two to greet each other');
      const got = collect(d);
      await c.write([decidedSend(msg('m2'), (await c.getRoom('r1'))!)]);
      await waitFor(() => got.length >= 1, 'm2 on d');
      assert.is(d.feed.carried, 1, 'carried once c knew d listens');
    } finally {
      await d.close();
    }
  } finally {
    await c.close();
    await lone.drop();
  }
});

test('a payload keeps to the size a notification may have: without the rooms when they do not fit, else the seq alone', () => {
  const ev = { body: '{"type":"message.created","message":null}', mbody: '{"id":"m1"}' };
  const room = { id: 'r1', members: ['a'] } as unknown as RoomRecord;
  const crowd = { id: 'r2', members: Array.from({ length: 1000 }, (_, i) => `agent-${i}`) } as unknown as RoomRecord;
  const [events, rooms, ...rest] = notifyTail([ev], [room]).split('\n');
  assert.equal(JSON.parse(events!), { events: [[{ type: 'message.created', message: null }, { id: 'm1' }]] });
  assert.equal(JSON.parse(rooms!), [room]);
  assert.equal(rest, []);
  assert.equal(JSON.parse(notifyTail([ev], [crowd])), { events: [[{ type: 'message.created', message: null }, { id: 'm1' }]] });
  assert.is(notifyTail([{ body: `{"t":"${'x'.repeat(8000)}"}`, mbody: null }], []), '');
  // The most events of ~200 bytes a payload takes: it stays under the limit with the seq in front.
  const tail = (k: number) => notifyTail(Array(k).fill({ body: `{"t":"${'x'.repeat(190)}"}`, mbody: null }), []);
  let k = 1;
  while (tail(k + 1) !== '') k++;
  assert.ok(k >= 30, `${k} events`);
  assert.ok(Buffer.byteLength(`${Number.MAX_SAFE_INTEGER}${tail(k)}`) < 8000);
});

test.run();
