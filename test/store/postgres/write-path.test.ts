// The Postgres write path under concurrency on one instance: grouped room messages keep events
// dense and messages numbered in event order, a retry sent while its first send is in flight
// answers `exists`, artifacts and plain events ride in the groups, texts of any characters come
// back exactly through a group and the general statement (text-array.ts), and point lookups asked for
// together, of every kind and past one query's size, answer each id (and see every write that
// returned before them); a lookup of single ids is not planned again at every execution.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/index.js';
import type { StoredEvent } from '../../../src/store/types.js';
import { freshSchema, sql, type PgSchema } from '../../helpers/pg.js';
import { appendOp, artifact, claim, createRoom, inRoom, inThread, msg, send } from '../../helpers/store-fixtures.js';

const test = suite('store (postgres): the write path under concurrency');
let pgs: PgSchema;
let a: PostgresStore;

test.before.each(async () => {
  pgs = await freshSchema();
  a = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  await a.write([createRoom('r1')]);
});
test.after.each(async () => {
  await a.close();
  await pgs.drop();
});

test('200 concurrent room messages get dense sequence numbers, and history lists them in event order', async () => {
  const got: StoredEvent[] = [];
  a.feed.subscribe(a.feed.head, (evs) => got.push(...evs));
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => a.write([send(msg(`m${i}`))])));
  const seqs = results.flatMap((r) => r.events.map((e) => e.seq)).sort((x, y) => x - y);
  assert.equal(
    seqs,
    Array.from({ length: 200 }, (_, i) => i + 2),
  );
  assert.equal(
    got.map((e) => e.seq),
    seqs,
  );
  // The messages table numbers rows under the same lock as the events: its order is event order.
  const rows = await sql<{ id: string }>(pgs.url, `SELECT id FROM ${pgs.schema}.messages ORDER BY seq`);
  assert.equal(
    rows.map((r) => r.id),
    got.map((e) => e.event.message!.id),
  );
});

test('a retry sent while the first send of its id is in flight answers exists', async () => {
  const m = msg('dup');
  const writes = [a.write([send(m)])];
  // Other messages so the two sends of `dup` land in different groups.
  for (let i = 0; i < 20; i++) writes.push(a.write([send(msg(`x${i}`))]));
  writes.push(a.write([send(m)]));
  const results = await Promise.all(writes);
  const statuses = [results[0]!, results[results.length - 1]!].map((r) => (r.outcomes[0] as { status: string }).status).sort();
  assert.equal(statuses, ['exists', 'stored']);
  assert.is((await a.eventsAfter(0, 100)).filter((e) => e.event.message?.id === 'dup').length, 1);
});

test('artifacts and plain events written in groups are stored with their messages', async () => {
  const withArt = msg('art-m', inRoom('r1'));
  const results = await Promise.all([
    a.write([send(withArt, [artifact('art1', inRoom('r1'), 'art-m')])]),
    a.write([appendOp('room.members.updated', { room_id: 'r1' })]),
    a.write([send(msg('plain'))]),
  ]);
  assert.is(results.flatMap((r) => r.events).length, 3);
  const page = await a.listArtifacts({ room_id: 'r1' }, { limit: 10 });
  assert.equal(
    page.items.map((x) => x.id),
    ['art1'],
  );
  const events = await a.eventsAfter(1, 10);
  assert.equal(
    events.map((e) => e.seq),
    [2, 3, 4],
  );
  assert.equal((await a.getMessage('art-m'))?.message, withArt);
});

test('texts with quotes, backslashes, control characters and unpaired surrogates come back exactly, grouped or not', async () => {
  const texts = ['a "quoted" \\ word', 'line\nbreak\ttab', 'émoji 👋 {,}', 'lone \ud800 half', 'NULL', ''];
  const sent = texts.map((text, i) => ({ ...msg(`odd${i}`), parts: [{ kind: 'text' as const, text }] }));
  // Room messages sent together share one grouped statement; a thread's first message takes the
  // general one (both pass their arrays as literals: text-array.ts).
  sent.push({ ...msg('odd-thread', inThread('t-odd')), parts: [{ kind: 'text', text: 'in "a" thread \\ \n' }] });
  await Promise.all(sent.map((m) => a.write([send(m)])));
  for (const m of sent) assert.equal((await a.getMessage(m.id))?.message, m, m.id);
  const shown = new Map((await a.eventsAfter(1, 20)).flatMap((e) => (e.event.message ? [[e.event.message.id, e.event.message]] : [])));
  for (const m of sent) assert.equal(shown.get(m.id), m, `the event of ${m.id}`);
});

test('lookups asked for together answer each id, and see the writes that returned before them', async () => {
  await a.write([claim('ag1'), claim('ag2')]);
  const ids = ['ag1', 'nobody', 'ag2', 'ag1'];
  const agents = await Promise.all([...ids, ...ids, ...ids].map((id) => a.getAgent(id)));
  assert.equal(
    agents.map((x) => x?.id),
    [...ids, ...ids, ...ids].map((id) => (id === 'nobody' ? undefined : id)),
  );
  const rooms = await Promise.all(['r1', 'r2', 'r1'].map((id) => a.getRoom(id)));
  assert.equal(
    rooms.map((r) => r?.id),
    ['r1', undefined, 'r1'],
  );
  for (let i = 0; i < 20; i++) {
    const busy = Array.from({ length: 10 }, () => a.getMessage(`late${i}`));
    await a.write([send(msg(`late${i}`))]);
    assert.is((await a.getMessage(`late${i}`))?.message.id, `late${i}`);
    await Promise.all(busy);
  }
  // One id of one kind with several of another, in one query.
  const [one, ...two] = await Promise.all([a.getAgent('ag2'), a.getRoom('r1'), a.getRoom('r2')]);
  assert.equal([one?.id, ...two.map((r) => r?.id)], ['ag2', 'r1', undefined]);
});

test('a lookup of one id per kind is planned once per connection, not at every execution', async () => {
  const one = await openPostgresStore({ url: pgs.url, schema: pgs.schema, poolSize: 1 });
  try {
    for (let i = 0; i < 12; i++) assert.is((await one.getRoom('r1'))?.id, 'r1');
    // The store's only pooled connection, where its lookup statements are prepared.
    const pool = (
      one as unknown as {
        pool: { query: (text: string) => Promise<{ rows: { name: string; generic_plans: string; custom_plans: string }[] }> };
      }
    ).pool;
    const plans = (await pool.query("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'lookup%'")).rows;
    assert.is(plans.length, 1);
    // The database tries five custom plans before it settles on the generic one.
    assert.ok(Number(plans[0]!.custom_plans) <= 5, `custom plans: ${plans[0]!.custom_plans}`);
    assert.ok(Number(plans[0]!.generic_plans) >= 7, `generic plans: ${plans[0]!.generic_plans}`);
  } finally {
    await one.close();
  }
});

test('lookups of every kind asked at once, more than one query holds, each get their own record', async () => {
  await a.write([claim('ag1'), createRoom('r2')]);
  await a.write([send(msg('m1'))]);
  // 1,300 distinct ids over three kinds: more than the 500 one query takes, split across queries mid-kind.
  const asks: [string, Promise<{ id?: string; message?: { id: string } } | undefined>][] = [];
  for (let i = 0; i < 600; i++) asks.push([`room r${i}`, a.getRoom(`r${i}`)]);
  for (let i = 0; i < 500; i++) asks.push([`agent ag${i}`, a.getAgent(`ag${i}`)]);
  for (let i = 0; i < 200; i++) asks.push([`message m${i}`, a.getMessage(`m${i}`)]);
  const found = (await Promise.all(asks.map(async ([what, p]) => [what, await p] as const))).filter(([, r]) => r !== undefined);
  assert.equal(
    found.map(([what, r]) => `${what} -> ${r!.id ?? r!.message!.id}`),
    ['room r1 -> r1', 'room r2 -> r2', 'agent ag1 -> ag1', 'message m1 -> m1'],
  );
});

test.run();
