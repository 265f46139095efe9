// What only a shared database adds to the store contract: two stores (two processes' worth) on one
// schema see each other's writes through their feeds in one order, races between them resolve by
// constraints (receipts: by their conversations' locks), leases hold across them, migrations run
// once, and a lost database is `unavailable`.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/index.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { receiptsPart } from '../../../src/store/receipts/part.js';
import { NOTIFIED_READ_GAP_MS } from '../../../src/store/postgres/feed.js';
import type { StoredEvent, WriteOp } from '../../../src/store/types.js';
import { collect, twoInstances } from '../../helpers/pg-instances.js';
import { freshSchema, sql, startOwnCluster, type PgSchema } from '../../helpers/pg.js';
import {
  at,
  claim,
  codeOf,
  createRoom,
  event,
  inRoom,
  inThread,
  members,
  membersEvent,
  msg,
  send,
  settled,
  waitFor,
} from '../../helpers/store-fixtures.js';

const test = suite('store (postgres, shared by two instances)');
let pgs: PgSchema;
let a: PostgresStore;
let b: PostgresStore;

test.before.each(async () => {
  pgs = await freshSchema();
  [a, b] = await twoInstances(pgs);
});
test.after.each(async () => {
  await Promise.all([a.close(), b.close()]);
  await pgs.drop();
});

test('two instances starting together migrate the schema once', async () => {
  const rows = await sql<{ version: number }>(pgs.url, `SELECT version FROM ${pgs.schema}.schema_migrations ORDER BY version`);
  assert.equal(
    rows.map((r) => r.version),
    Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
  );
});

test('interleaved writes from two instances reach both feeds once each, in one dense order', async () => {
  const onA = collect(a, 0);
  const onB = collect(b, 0);
  await a.write([createRoom('r1')]);
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 40; i++) writes.push((i % 2 ? a : b).write([send(msg(`m${i}`))]));
  await Promise.all(writes);
  const total = 41;
  await waitFor(() => onA.length >= total && onB.length >= total, 'both feeds to deliver every event');
  const seqs = (l: StoredEvent[]) => l.map((e) => e.seq);
  const dense = Array.from({ length: total }, (_, i) => i + 1);
  assert.equal(seqs(onA), dense);
  assert.equal(seqs(onB), dense);
  assert.equal(
    onA.map((e) => e.event.id),
    onB.map((e) => e.event.id),
  );
  assert.is(new Set(onA.map((e) => e.event.message?.id).filter(Boolean)).size, 40);
  assert.is(a.feed.head, total);
  assert.is(b.feed.head, total);
});

test('two instances racing on the first message of one thread make one thread counting both', async () => {
  await a.write([createRoom('r1')]);
  const r = await settled([a.write([send(msg('t-a', inThread('t1')))]), b.write([send(msg('t-b', inThread('t1')))])]);
  assert.equal(r, ['ok', 'ok']);
  const t = await b.getThread('t1');
  assert.is(t?.message_count, 2);
  const created = (await a.eventsAfter(0, 100)).filter((e) => e.event.type === 'thread.created');
  assert.is(created.length, 1);
});

test('identical retries on two instances store one message; claims by two credentials: one wins', async () => {
  await a.write([createRoom('r1')]);
  const m = msg('dup');
  const [ra, rb] = await Promise.all([a.write([send(m)]), b.write([send(m)])]);
  const statuses = [ra.outcomes[0], rb.outcomes[0]].map((o) => (o as { status: string }).status).sort();
  assert.equal(statuses, ['exists', 'stored']);
  assert.is((await a.eventsAfter(0, 100)).filter((e) => e.event.message?.id === 'dup').length, 1);

  const claims = await settled([a.write([claim('x', 'token:one')]), b.write([claim('x', 'token:two')])]);
  assert.equal([...claims].sort(), ['agent_taken', 'ok']);
  const owner = (await b.getAgent('x'))!.credential_key;
  assert.ok(owner === 'token:one' || owner === 'token:two');
});

test('events another instance reads from the database carry their room as it is then, once per room a page', async () => {
  await a.write([createRoom('r1', { members: ['a1', 'x'] }), createRoom('r2')]);
  await a.write([send(msg('m1'))]);
  await a.write([send(msg('m2'))]);
  await a.write([send(msg('m3', inRoom('r2')))]);
  await a.write([send(msg('t1', inThread('th1')))]);
  await a.write([members('r1', [], ['x'])]);
  await a.write([send(msg('m4'))]);
  const head = await a.lastEventSeq();
  await waitFor(() => b.feed.head >= head, 'the feed on b to reach the last event');
  // Behind the head, a new subscriber catches up by reading the stored events in one page.
  const got = collect(b, 0);
  await waitFor(() => got.length >= head, 'the catch-up read');
  const carried = got.filter((e) => e.room).map((e) => [e.event.message?.id ?? e.event.type, e.room!.id, e.room!.members]);
  assert.equal(carried, [
    ['m1', 'r1', ['a1']],
    ['m3', 'r2', ['a1']],
  ]);
  // The room is read with the events, not remembered: a later read sees the room as it is then.
  await a.write([members('r1', ['y'])]);
  await a.write([send(msg('m5'))]);
  // Behind the head again (m5 itself may reach the live feed in its notification, without a room).
  await waitFor(async () => b.feed.head >= (await a.lastEventSeq()), 'the feed on b to reach m5');
  const later = collect(b, head);
  await waitFor(() => later.some((e) => e.event.message?.id === 'm5'), 'm5 on b');
  assert.equal(later.find((e) => e.event.message?.id === 'm5')!.room?.members, ['a1', 'y']);
  // The plain read (relays, copies) carries no room.
  assert.not.ok((await b.eventsAfter(0, 100)).some((e) => e.room));
});

test("an instance's own commits reach its feed without reading them back; the other instance has them from the notifications", async () => {
  await a.write([createRoom('r1')]);
  await waitFor(() => a.feed.head >= 1 && b.feed.head >= 1, 'both feeds at the first event');
  const [ownBefore, otherBefore, carried] = [a.feed.reads, b.feed.reads, b.feed.carried];
  for (let i = 0; i < 30; i++) await a.write([send(msg(`own${i}`))]);
  await waitFor(() => b.feed.head >= 31, 'b to read every commit');
  assert.is(a.feed.head, 31);
  // At most the safety poll's reads: each notification of its own commits arrived during the write.
  assert.ok(a.feed.reads - ownBefore <= 2, `a read ${a.feed.reads - ownBefore} times for its own commits`);
  assert.is(b.feed.carried - carried, 30, 'b took the commits of a from their notifications');
  assert.ok(b.feed.reads - otherBefore <= 2, `b read ${b.feed.reads - otherBefore} times`);
  assert.is(a.feed.carried, 0, 'a took nothing from its own notifications');
});

test("another instance's commits that their notifications do not carry are read a few at a time, none missed", async () => {
  await a.write([createRoom('r1')]);
  await waitFor(() => b.feed.head >= 1, 'b at the first event');
  const got = collect(b, 1);
  const before = b.feed.reads;
  const started = performance.now();
  // Too big for a notification (notify-payload.ts): each one's is its seq alone.
  const big = (id: string) => ({ ...msg(id), parts: [{ kind: 'text' as const, text: 'x'.repeat(8100) }] });
  for (let i = 0; i < 40; i++) await a.write([send(big(`m${i}`))]);
  const elapsed = performance.now() - started;
  await waitFor(() => b.feed.head >= 41, 'b to read every commit');
  assert.equal(
    got.map((e) => e.seq),
    Array.from({ length: 40 }, (_, i) => i + 2),
  );
  // Reads for notifications start NOTIFIED_READ_GAP_MS apart (the first at once), plus the safety
  // poll and the read that finds the last commits: one read per commit would be 40.
  const reads = b.feed.reads - before;
  assert.ok(reads <= Math.ceil(elapsed / NOTIFIED_READ_GAP_MS) + 3, `b read ${reads} times for 40 commits in ${Math.round(elapsed)} ms`);
});

test('a lease has one holder across instances until released or expired', async () => {
  const first = await a.leases.acquire('attach:alpha', 'inst-a', 10_000);
  assert.ok(first.ok);
  const second = await b.leases.acquire('attach:alpha', 'inst-b', 10_000);
  assert.equal(second, { ok: false, owner: 'inst-a' });
  if (!first.ok) return;
  assert.ok(await first.lease.renew());
  await first.lease.release();
  const third = await b.leases.acquire('attach:alpha', 'inst-b', 200);
  assert.ok(third.ok);
  // Not renewed: after its ttl another instance may take it, and the old holder learns it lost it.
  await new Promise((r) => setTimeout(r, 350));
  const fourth = await a.leases.acquire('attach:alpha', 'inst-a', 10_000);
  assert.ok(fourth.ok);
  if (third.ok) assert.is(await third.lease.renew(), false);
});

test('the lease renewals of one turn are one statement, and a lease taken meanwhile is reported lost among them', async () => {
  const keys = Array.from({ length: 12 }, (_, i) => `attach:batch${i}`);
  const held = await Promise.all(keys.map((k, i) => a.leases.acquire(k, 'inst-a', i === 0 ? 200 : 10_000)));
  const leases = held.map((h) => {
    if (!h.ok) throw new Error(`not acquired: held by ${h.owner}`);
    return h.lease;
  });
  // The first expires and another instance takes it.
  await new Promise((r) => setTimeout(r, 350));
  assert.ok((await b.leases.acquire(keys[0]!, 'inst-b', 10_000)).ok);
  const xmins = () =>
    sql<{ n: string }>(pgs.url, `SELECT count(DISTINCT xmin::text) AS n FROM ${pgs.schema}.leases WHERE owner = 'inst-a'`).then((r) =>
      Number(r[0]!.n),
    );
  assert.is(await xmins(), 11, 'acquired one by one');
  const renewed = await Promise.all(leases.map((l) => l.renew()));
  assert.equal(renewed, [false, ...Array(11).fill(true)]);
  assert.is(await xmins(), 1, 'the eleven renewals were one transaction');
  // The lost one stays lost; the others renew again.
  assert.equal(await Promise.all(leases.slice(0, 2).map((l) => l.renew())), [false, true]);
});

test('rows put together are one statement on a shared database', async () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ kind: 'Stamp', id: `agent${i}`, value: `{"at":${i}}` }));
  await a.kv.putMany(rows);
  const r = await sql<{ n: string; rows: string }>(
    pgs.url,
    `SELECT count(DISTINCT xmin::text) AS n, count(*) AS rows FROM ${pgs.schema}.kv WHERE kind = 'Stamp'`,
  );
  assert.equal(r[0], { n: '1', rows: '20' });
  assert.is((await b.kv.get('Stamp', 'agent7'))?.value, '{"at":7}');
});

test("two instances marking one reader's receipts at once lose none of the marks", async () => {
  await a.write([createRoom('r1')]);
  const mark = (seq: number): WriteOp => ({
    op: 'receipt.mark',
    marks: [{ reader: 'agent:x', conv: 'room:r1', kind: 'delivered', lo: seq, hi: seq, at: '2026-01-01T00:00:00.000Z' }],
  });
  // Seqs past the newest event: no gap between two of them can be bridged, so a lost mark stays a hole.
  const seqs = Array.from({ length: 30 }, (_, i) => 101 + ((i * 7) % 30));
  await Promise.all(seqs.map((seq, i) => (i % 2 ? a : b).write([mark(seq)])));
  const [rec] = await a.part(receiptsPart)!.list('room:r1');
  assert.equal(
    rec?.ranges.map(([lo, hi]) => [lo, hi]),
    [[101, 130]],
  );
});

test("an instance that remembers a reader's records reads them again once another instance wrote them", async () => {
  await a.write([createRoom('r1')]);
  const mark = (seq: number, reader = 'agent:x'): WriteOp => ({
    op: 'receipt.mark',
    marks: [{ reader, conv: 'room:r1', kind: 'delivered', lo: seq, hi: seq, at: '2026-01-01T00:00:00.000Z' }],
  });
  const ranges = async () => (await b.part(receiptsPart)!.list('room:r1')).map((r) => [r.reader, r.ranges.map(([lo, hi]) => [lo, hi])]);
  // Seqs past the newest event, so no two are bridged: a mark decided on an old record leaves a hole.
  await a.write([mark(101), mark(101, 'agent:y')]);
  await a.write([mark(102)]); // a now remembers x's and y's records as they are
  await b.write([mark(104), mark(105, 'agent:y')]);
  await a.write([mark(103), mark(106, 'agent:y')]);
  assert.equal(await ranges(), [
    ['agent:x', [[101, 104]]],
    [
      'agent:y',
      [
        [101, 101],
        [105, 106],
      ],
    ],
  ]);
  // A statement that fails after the decision leaves the version as it was: nothing remembered of it is used.
  await sql(pgs.url, `ALTER TABLE ${pgs.schema}.receipt_events ADD CONSTRAINT no_more CHECK (false) NOT VALID`);
  const notice = {
    conv: 'room:r1',
    event: event('message.receipts', { id: 'rc1', receipts: { target: { kind: 'room', room_id: 'r1' }, marks: [] } }),
  };
  const refused = await a.write([{ ...(mark(107) as Extract<WriteOp, { op: 'receipt.mark' }>), notices: [notice] }]).then(
    () => false,
    () => true,
  );
  assert.ok(refused, 'the write with a failing statement is refused');
  await sql(pgs.url, `ALTER TABLE ${pgs.schema}.receipt_events DROP CONSTRAINT no_more`);
  await a.write([mark(109)]);
  assert.equal((await ranges())[0], [
    'agent:x',
    [
      [101, 104],
      [109, 109],
    ],
  ]);
});

test('a closed instance releases its leases at once', async () => {
  const held = await a.leases.acquire('pairing:p1', 'inst-a', 60_000);
  assert.ok(held.ok);
  await a.close();
  const taken = await b.leases.acquire('pairing:p1', 'inst-b', 60_000);
  assert.ok(taken.ok);
});

test('a feed whose listening connection is killed catches up by cursor', async () => {
  const onB = collect(b, 0);
  await sql(pgs.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()");
  await a.write([createRoom('r1')]);
  for (let i = 0; i < 5; i++) await a.write([send(msg(`k${i}`))]);
  await waitFor(() => onB.length >= 6, 'the other instance to catch up');
  assert.equal(
    onB.map((e) => e.seq),
    [1, 2, 3, 4, 5, 6],
  );
  await waitFor(() => b.feed.listening, 'the listener to reconnect');
});

test('the message JSON comes back byte for byte', async () => {
  await a.write([createRoom('r1')]);
  const m = msg('exact');
  m.parts = [{ kind: 'text', text: 'emoji \u{1F600}, quotes "x", backslash \\ and \u2028' }];
  await a.write([send(m)]);
  const page = await b.listMessages('room:r1', { limit: 10 });
  assert.is(JSON.stringify(page.items[0]), JSON.stringify(m));
  const ev = (await b.eventsAfter(0, 10)).find((e) => e.event.type === 'message.created')!;
  assert.is(JSON.stringify(ev.event.message), JSON.stringify(m));
});

test("a room's retention (#40 part 4) reads back as declared on both, and declaring it again changes nothing", async () => {
  // Key order unlike jsonb's own (shorter keys first): the comparison is by value.
  const declare = (store: PostgresStore) =>
    store.write([
      {
        op: 'room.declare',
        room: { id: 'kept', members: ['a1'], retention: { max_messages: 3, max_age: '30d' } },
        members_mode: 'set',
        keep_removed: false,
        at: at(),
        events: { created: (r) => event('room.created', { room_id: r.id }), members: membersEvent },
      },
    ]);
  const first = await declare(a);
  assert.equal(first.outcomes[0]!.op === 'room.declare' && first.outcomes[0]!.action, 'created');
  for (const s of [a, b]) assert.equal((await s.getRoom('kept'))!.retention, { max_age: '30d', max_messages: 3 });
  const again = await declare(b);
  assert.equal([again.outcomes[0]!.op === 'room.declare' && again.outcomes[0]!.action, again.events], ['unchanged', []]);
});

test('a schema migrated by a newer svc is refused as corrupt', async () => {
  await sql(pgs.url, `INSERT INTO ${pgs.schema}.schema_migrations (version) VALUES (${SCHEMA_VERSION + 1})`);
  assert.is(await codeOf(() => openPostgresStore({ url: pgs.url, schema: pgs.schema })), 'corrupt');
});

test.run();

const outage = suite('store (postgres) while the database is down');

outage('writes are unavailable and ping fails while the database is stopped; both recover', async () => {
  // Stopping the server needs a cluster of our own, also when SVC_TEST_PG_URL names a shared one.
  const cluster = await startOwnCluster();
  const store = await openPostgresStore({ url: cluster.url, schema: 'outage' });
  try {
    await store.write([createRoom('r1')]);
    cluster.stop();
    assert.is(await store.ping(), false);
    assert.is(await codeOf(() => store.write([send(msg('during'))])), 'unavailable');
    assert.is(await codeOf(() => store.getRoom('r1')), 'unavailable');
    cluster.start();
    await waitFor(() => store.ping(), 'ping to recover', 15_000);
    const r = await store.write([send(msg('after'))]);
    assert.equal(
      r.events.map((e) => e.seq),
      [2],
    );
    assert.is(await store.getMessage('during'), undefined);
    const seen = collect(store, 0);
    await waitFor(() => seen.length === 2, 'the feed to deliver both events');
  } finally {
    await store.close();
    cluster.destroy();
  }
});

outage.run();
