// The sqlite store applies every write of one event-loop turn in one transaction (committed once;
// while a group fsync is in flight, once before the next one), writes the turn's journal records
// with one write call before that commit, and undoes a failed write by replaying the transaction's
// earlier writes; a failed journal write fails the whole turn. These tests start writes in the same
// turn (no await between them) and check that exactly the failed ones are missing, in memory and
// after a reopen, and that room and agent reads follow writes and rollbacks.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message, ServiceEvent } from '../../../src/protocol/types.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import { listJournals, readJournal } from '../../../src/store/sqlite/engine/journal.js';
import { FrameBuilder, encodeRecord } from '../../../src/store/sqlite/engine/journal-format.js';
import { jsonOf } from '../../../src/protocol/json-cache.js';
import { StoreError, type MessageInsertOp, type WriteOp } from '../../../src/store/types.js';

const NET = 'net1';
const AT = '2024-05-01T00:00:00.000Z';

function msg(id: string, room = 'r1'): Message {
  return {
    id,
    network_id: NET,
    target: { kind: 'room', room_id: room },
    from: { type: 'agent', id: 'a1', network_id: NET, fqid: `svc://${NET}/agents/a1` },
    parts: [{ kind: 'text', text: `text of ${id}` }],
    mentions: [],
    created_at: AT,
  };
}

const created = (m: Message): ServiceEvent => ({ id: `ev-${m.id}`, type: 'message.created', network_id: NET, created_at: AT, message: m });
const send = (m: Message): WriteOp[] => [
  {
    op: 'message.insert',
    record: { message: m, conv: `room:${m.target.kind === 'dm' ? '' : m.target.room_id}`, event_id: `ev-${m.id}` },
    event: created(m),
    artifacts: [],
  },
];
const room = (id: string, name = `Room ${id}`): WriteOp => ({
  op: 'room.declare',
  room: { id, name, members: ['a1'] },
  members_mode: 'set',
  keep_removed: false,
  at: AT,
  events: {
    created: (r) => ({ id: `ev-${r.id}-${r.name}`, type: 'room.created', network_id: NET, created_at: AT, room_id: r.id }),
    members: (r) => ({ id: `ev-m-${r.id}`, type: 'room.members.updated', network_id: NET, created_at: AT, room_id: r.id }),
  },
});
const claim = (id: string, credential_key = `token:${id}`): WriteOp => ({
  op: 'agent.claim',
  agent: { id, actor_uid: `uid-${id}`, credential_key, created_at: AT, updated_at: AT },
});
const messagesOf = async (s: SqliteStore) =>
  (await s.eventsAfter(0, 10)).filter((e) => e.event.type === 'message.created').map((e) => e.event.message?.id);

/** Settles every promise; returns each one's StoreError code, or 'ok'. */
async function outcomes(ps: Promise<unknown>[]): Promise<string[]> {
  const rs = await Promise.allSettled(ps);
  return rs.map((r) => (r.status === 'fulfilled' ? 'ok' : r.reason instanceof StoreError ? r.reason.code : String(r.reason)));
}

const test = suite('sqlite store: writes sharing a turn');
let dir = '';
let path = '';
let opened: SqliteStore[] = [];

async function open(opts: Partial<Parameters<typeof openSqliteStore>[0]> = {}): Promise<SqliteStore> {
  const s = await openSqliteStore({ path, ...opts });
  opened.push(s);
  return s;
}

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-turns-'));
  path = join(dir, 'svc.db');
  opened = [];
});
test.after.each(async () => {
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a refused intent after earlier ops of its batch leaves the writes around it', async () => {
  const a = await open();
  await a.write([...send(msg('m0')), claim('x', 'token:a')]);
  const results = await outcomes([
    a.write(send(msg('m1'))),
    // The room comes before the refused claim: the batch must vanish entirely.
    a.write([room('lost'), ...send(msg('lost')), claim('x', 'token:b')]),
    a.write(send(msg('m2'))),
  ]);
  assert.equal(results, ['ok', 'agent_taken', 'ok']);
  assert.is(await a.getRoom('lost'), undefined);
  assert.equal(
    (await a.listMessages('room:r1', { limit: 10 })).items.map((m) => m.id),
    ['m0', 'm1', 'm2'],
  );
  assert.equal(
    (await a.eventsAfter(0, 10)).map((e) => [e.seq, e.event.message?.id]),
    [
      [1, 'm0'],
      [2, 'm1'],
      [3, 'm2'],
    ],
  );
  await a.close();
  const b = await open();
  assert.is(await b.getRoom('lost'), undefined);
  assert.equal(
    (await b.eventsAfter(0, 10)).map((e) => [e.seq, e.event.message?.id]),
    [
      [1, 'm0'],
      [2, 'm1'],
      [3, 'm2'],
    ],
  );
});

test('a failed journal write fails exactly the writes of its turn; the turns before and after it stand', async () => {
  let failNext = false;
  let writeCalls = 0;
  const a = await open({
    faults: {
      failWrites: () => {
        writeCalls++;
        return failNext ? !(failNext = false) : false;
      },
    },
  });
  await a.write([room('kept'), ...send(msg('m1'))]);
  const before = (await a.stats()).journal_bytes;
  const calls = writeCalls;
  failNext = true;
  // One turn: its three records go to the journal in one write, which fails half-way.
  const lost = [a.write([room('lost'), ...send(msg('m2'))]), a.write(send(msg('m3'))), a.write([claim('x')])];
  // Reads in the turn see its writes until the journal refuses them.
  assert.is((await a.getRoom('lost'))?.id, 'lost');
  assert.equal(await outcomes(lost), ['unavailable', 'unavailable', 'unavailable']);
  assert.is(writeCalls - calls, 1);
  assert.is((await a.stats()).journal_bytes, before);
  assert.is(await a.getRoom('lost'), undefined);
  assert.is(await a.getMessage('m3'), undefined);
  assert.is(await a.getAgent('x'), undefined);
  assert.equal(await messagesOf(a), ['m1']);
  assert.is((await a.stats()).messages, 1);
  // The next turn's seqs follow the last acknowledged event: the failed turn left no gap.
  const seq = await a.lastEventSeq();
  const after = await a.write(send(msg('m4')));
  assert.equal(
    after.events.map((e) => e.seq),
    [seq + 1],
  );
  assert.equal(await messagesOf(a), ['m1', 'm4']);
  await a.close();
  const b = await open();
  assert.equal(
    (await b.listRooms()).map((r) => r.id),
    ['kept'],
  );
  assert.equal(await messagesOf(b), ['m1', 'm4']);
});

test("a retry answered from a failed turn's own write fails with it", async () => {
  let failNext = false;
  const a = await open({ faults: { failWrites: () => (failNext ? !(failNext = false) : false) } });
  await a.write([room('r1')]);
  failNext = true;
  const first = a.write(send(msg('m1')));
  // Same message again in the same turn: nothing new to write, answered from the turn's read.
  const retry = a.write(send(msg('m1')));
  assert.equal(await outcomes([first, retry]), ['unavailable', 'unavailable']);
  assert.is(await a.getMessage('m1'), undefined);
});

test('room and agent reads see writes of the same turn and forget undone ones', async () => {
  let failNext = false;
  const a = await open({ faults: { failWrites: () => (failNext ? !(failNext = false) : false) } });
  await a.write([room('r1', 'before'), claim('a1')]);
  // Read (and cache) first, then change within one turn.
  assert.is((await a.getRoom('r1'))?.name, 'before');
  assert.is(await a.getAgent('missing'), undefined);
  const renamed = a.write([room('r1', 'after'), claim('missing')]);
  assert.is((await a.getRoom('r1'))?.name, 'after');
  assert.is((await a.getAgent('missing'))?.id, 'missing');
  assert.equal(await outcomes([renamed]), ['ok']);
  failNext = true;
  const undone = a.write([room('r1', 'undone'), claim('other'), ...send(msg('m1'))]);
  assert.is((await a.getRoom('r1'))?.name, 'undone');
  assert.equal(await outcomes([undone]), ['unavailable']);
  assert.is((await a.getRoom('r1'))?.name, 'after');
  assert.is(await a.getAgent('other'), undefined);
  // Every read is a copy: changing one does not change the next.
  const r = (await a.getRoom('r1'))!;
  r.members.push('intruder');
  assert.equal((await a.getRoom('r1'))?.members, ['a1']);
});

test('a checkpoint in the middle of a busy turn exports committed writes and loses none', async () => {
  const a = await open({ checkpointBytes: 4096 });
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 60; i++) writes.push(a.write(send(msg(`m${i}`))));
  assert.equal(new Set(await outcomes(writes)), new Set(['ok']));
  await a.close();
  const b = await open();
  assert.is((await b.stats()).messages, 60);
  assert.is(await b.lastEventSeq(), 60);
});

test('the journal line and the stored rows hold the exact JSON, whatever the text', async () => {
  const a = await open();
  const texts = ['plain', 'accents: é ü ø, CJK: 漢字, emoji: 🦜🧪', 'line\u2028sep "quotes" \\ back\nslash', `${'big '.repeat(30000)}末`];
  const ms = texts.map((t, i) => ({ ...msg(`u${i}`), parts: [{ kind: 'text' as const, text: t }] }));
  for (const m of ms) await a.write(send(m));
  for (const m of ms) assert.equal((await a.getMessage(m.id))?.message, m);
  assert.equal(
    (await a.eventsAfter(0, 10)).map((e) => e.event.message),
    ms,
  );
  const records = listJournals(path).flatMap((j) => readJournal(j.path).records) as {
    ops: { op: string; record?: { message: Message } }[];
  }[];
  assert.equal(
    records.map((r) => r.ops[0]!.record!.message),
    ms,
  );
  await a.close();
  const b = await open();
  assert.equal(
    (await b.eventsAfter(0, 10)).map((e) => e.event.message),
    ms,
  );
});

test('the event JSON a write leaves for live streams is exactly the JSON of the event', async () => {
  const a = await open();
  const m1 = { ...msg('j1'), parts: [{ kind: 'text' as const, text: 'é 🦜 "q" \\ \u2028' }] };
  await a.write(send(m1));
  const events: ServiceEvent[] = [
    created(m1), // its message is stored: kept by reference
    { ...created(m1), id: 'ev-copy', message: { ...m1 } }, // an equal copy: also by reference
    { ...created(m1), id: 'ev-changed', message: { ...m1, parts: [] } }, // differs: stored whole
    { id: 'ev-order', type: 'message.created', message: m1, network_id: NET, created_at: AT }, // message not last
    { id: 'ev-plain', type: 'room.created', network_id: NET, created_at: AT, room_id: 'r1' },
  ];
  const m2 = msg('j2');
  const sameBatch = created(m2);
  await a.write([
    ...events.map((event) => ({ op: 'event.append' as const, event })),
    { ...(send(m2)[0] as MessageInsertOp), event: sameBatch },
  ]);
  for (const e of [...events, sameBatch]) assert.is(jsonOf(e), JSON.stringify(e));
  assert.equal(
    (await a.eventsAfter(1, 10)).map((e) => e.event),
    [...events, sameBatch],
  );
});

test('writes of later turns join the transaction while a group fsync is in flight, and a failed journal write there fails them all', async () => {
  let failNext = false;
  const a = await open({ faults: { failWrites: () => (failNext ? !(failNext = false) : false) } });
  const tick = () => new Promise((r) => setImmediate(r));
  const first = a.write(send(msg('m1')));
  while (!a.journal.syncing) await tick();
  // Turns after the one of m1, while its fdatasync runs: their transaction stays open until the next group.
  const second = a.write([room('r2'), ...send(msg('m2'))]);
  await tick();
  failNext = true;
  const third = a.write([room('lost'), ...send(msg('m3'))]);
  const fourth = a.write(send(msg('m4', 'r2')));
  // m1's turn was written before the failure: it stands; the three later writes are one turn.
  assert.equal(await outcomes([first, second, third, fourth]), ['ok', 'unavailable', 'unavailable', 'unavailable']);
  assert.equal(await messagesOf(a), ['m1']);
  assert.is(await a.getRoom('lost'), undefined);
  assert.is(await a.getRoom('r2'), undefined);
  await a.write(send(msg('m5')));
  await a.close();
  const b = await open();
  assert.equal(await messagesOf(b), ['m1', 'm5']);
  assert.equal(
    (await b.listRooms()).map((r) => r.id),
    [],
  );
});

test('an insert whose id was minted skips the existence read; the unique key still refuses a collision', async () => {
  const a = await open();
  await a.write([room('r1'), ...send(msg('m1'))]);
  const minted = (m: Message): WriteOp[] => send(m).map((op) => ({ ...op, minted: true }) as MessageInsertOp);
  assert.equal(await outcomes([a.write(minted(msg('m1'))), a.write(minted(msg('m2')))]), ['conflict', 'ok']);
  // Without the flag a stored id is a retry, answered with the stored message.
  const again = await a.write(send(msg('m1')));
  assert.is((again.outcomes[0] as { status: string }).status, 'exists');
  assert.equal(await messagesOf(a), ['m1', 'm2']);
});

test('a frame built from pieces is the line encodeRecord makes of the joined JSON', () => {
  const f = new FrameBuilder();
  for (const pieces of [['{"a":', '"é🦜"', '}'], ['{"x":[', JSON.stringify('ü'.repeat(40000)), ']}'], ['{}']]) {
    f.start();
    f.text(pieces[0]!);
    const ranges = pieces.slice(1, -1).map((p) => {
      const start = f.body(p);
      return [p, start, f.offset] as const;
    });
    if (pieces.length > 1) f.text(pieces[pieces.length - 1]!);
    const line = Buffer.from(f.finish());
    assert.equal(line, encodeRecord(pieces.join('')));
    for (const [p, start, end] of ranges) assert.is(f.bytes(start, end).toString('utf8'), p);
  }
});

test("a turn's lines are joined in one buffer; a line left unfinished is dropped", () => {
  const f = new FrameBuilder();
  const line = (json: string, finish = true) => {
    f.start();
    f.text(json.slice(0, 3));
    f.body(json.slice(3));
    if (finish) f.finish();
    else f.abandon();
  };
  line('{"a":1}');
  line('{"b":"ü".repeat}', false);
  line(`{"c":${JSON.stringify('🦜'.repeat(30000))}}`);
  line('{"d":4}', false);
  const turn = f.take();
  assert.is(turn.records, 2);
  assert.equal(
    Buffer.from(turn.bytes),
    Buffer.concat([encodeRecord('{"a":1}'), encodeRecord(`{"c":${JSON.stringify('🦜'.repeat(30000))}}`)]),
  );
  line('{"e":5}');
  assert.equal(Buffer.from(f.take().bytes), encodeRecord('{"e":5}'));
});

test.run();
