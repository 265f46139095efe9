import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Artifact, Message, ServiceEvent, Target } from '../src/protocol/types.js';
import { openStore } from '../src/store/open.js';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite/index.js';
import { encodeRecord, listJournals } from '../src/store/sqlite/journal.js';
import {
  StoreError,
  convKeyOf,
  type AgentRecord,
  type DmRecord,
  type PageQuery,
  type RoomRecord,
  type Store,
  type ThreadRecord,
  type WriteOp,
} from '../src/store/types.js';

// ---- fixtures ----

const NET = 'net1';
const T0 = Date.parse('2024-05-01T00:00:00.000Z');
let clock = 0;
const at = (): string => new Date(T0 + ++clock * 1000).toISOString();

const inRoom = (room_id = 'r1'): Target => ({ kind: 'room', room_id });
const inThread = (thread_id: string, room_id = 'r1'): Target => ({ kind: 'thread', room_id, thread_id });
const inDm = (dm_id: string): Target => ({ kind: 'dm', dm_id, participant_ids: ['net1:a', 'net1:b'] });

function msg(id: string, target: Target = inRoom()): Message {
  return {
    id,
    network_id: NET,
    target,
    from: { type: 'agent', id: 'a1', network_id: NET, fqid: 'net1:agent:a1' },
    parts: [{ kind: 'text', text: `text of ${id}` }],
    mentions: [],
    created_at: at(),
  };
}

const insert = (m: Message): WriteOp => ({
  op: 'message.insert',
  record: { message: m, conv: convKeyOf(m.target), event_id: `ev-${m.id}` },
});

const createdEvent = (m: Message): ServiceEvent => ({
  id: `ev-${m.id}`,
  type: 'message.created',
  network_id: NET,
  created_at: m.created_at,
  message: m,
});

/** The ops a send makes: the message and its `message.created` event. */
const send = (m: Message): WriteOp[] => [insert(m), { op: 'event.append', event: createdEvent(m) }];

function room(id: string, extra: Partial<RoomRecord> = {}): RoomRecord {
  const t = at();
  return {
    id,
    name: `Room ${id}`,
    members: ['a1'],
    visibility: 'public',
    write_policy: 'members',
    federation_pairings: [],
    created_at: t,
    updated_at: t,
    ...extra,
  };
}

function agent(id: string, credential_key = `token:${id}`): AgentRecord {
  const t = at();
  return { id, actor_uid: `uid-${id}`, credential_key, created_at: t, updated_at: t };
}

function thread(id: string, room_id = 'r1', message_count = 1): ThreadRecord {
  const t = at();
  return { id, room_id, message_count, last_message_at: t, created_at: t };
}

function dm(id: string, message_count = 1): DmRecord {
  const t = at();
  return { id, participant_ids: ['net1:a', 'net1:b'], message_count, last_message_at: t, created_at: t };
}

function artifact(id: string, target: Target): Artifact {
  return {
    id,
    network_id: NET,
    fqid: `${NET}:artifact:${id}`,
    message_id: `m-${id}`,
    target,
    part_index: 0,
    kind: 'url',
    url: `https://example.test/${id}`,
    created_at: at(),
  };
}

const ids = (items: { id: string }[]): string[] => items.map((i) => i.id);

/** The StoreError code `fn` fails with (fails the test when it does not). */
async function codeOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, StoreError);
    return (err as StoreError).code;
  }
  assert.unreachable('expected a StoreError');
  return '';
}

async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---- the shared suite: same assertions for every backend ----

function storeSuite(backend: 'memory' | 'sqlite'): void {
  const test = suite(`store (${backend})`);
  let dir = '';
  let store: Store;

  test.before.each(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    store = await openStore({ backend, path: join(dir, 'data', 'svc.db'), checkpoint_bytes: 64 * 1024 * 1024 });
  });
  test.after.each(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Writes the messages of one conversation, one send per batch. */
  async function conversation(n: number, target: Target = inRoom(), prefix = 'm'): Promise<Message[]> {
    const out: Message[] = [];
    for (let i = 1; i <= n; i++) {
      const m = msg(`${prefix}${i}`, target);
      await store.write(send(m));
      out.push(m);
    }
    return out;
  }

  test('a new store is empty and healthy', () => {
    assert.is(store.backend, backend);
    assert.ok(store.ping());
    assert.equal(store.listRooms(), []);
    assert.equal(store.listAgents(), []);
    assert.equal(store.listDms(), []);
    assert.is(store.getRoom('r1'), undefined);
    assert.is(store.getMessage('m1'), undefined);
    assert.equal(store.eventsAfter(0, 10), []);
    assert.is(store.lastEventSeq(), 0);
    const s = store.stats();
    assert.equal([s.backend, s.messages, s.events, s.last_event_seq], [backend, 0, 0, 0]);
  });

  test('an empty batch applies nothing and resolves', async () => {
    assert.equal(await store.write([]), { event_seqs: [] });
    assert.is(store.lastEventSeq(), 0);
  });

  test('room.put stores a room and a second put updates it in place', async () => {
    const a = room('a');
    const b = room('b');
    await store.write([{ op: 'room.put', room: a }, { op: 'room.put', room: b }]);
    const a2 = { ...a, name: 'Renamed', members: ['a1', 'a2'], updated_at: at() };
    await store.write([{ op: 'room.put', room: a2 }]);
    assert.equal(store.getRoom('a'), a2);
    assert.equal(ids(store.listRooms()), ['a', 'b']);
  });

  test('removed rooms leave listings but stay readable by id', async () => {
    await store.write([{ op: 'room.put', room: room('a') }, { op: 'room.put', room: room('b') }]);
    const removed = { ...store.getRoom('a')!, removed_at: at() };
    await store.write([{ op: 'room.put', room: removed }]);
    assert.equal(ids(store.listRooms()), ['b']);
    assert.equal(store.getRoom('a'), removed);
  });

  test('agents are listed in registration order and found by credential', async () => {
    await store.write([
      { op: 'agent.put', agent: agent('x', 'token:t1') },
      { op: 'agent.put', agent: { ...agent('y', 'token:t2'), name: 'Why' } },
      { op: 'agent.put', agent: agent('z', 'token:t1') },
    ]);
    assert.equal(ids(store.listAgents()), ['x', 'y', 'z']);
    assert.equal(ids(store.findAgentsByCredential('token:t1')), ['x', 'z']);
    assert.equal(store.findAgentsByCredential('token:none'), []);
    assert.is(store.getAgent('y')?.name, 'Why');
  });

  test('agent.put of a known id updates it in place, including its credential', async () => {
    await store.write([{ op: 'agent.put', agent: agent('x', 'token:t1') }, { op: 'agent.put', agent: agent('y') }]);
    await store.write([{ op: 'agent.put', agent: { ...store.getAgent('x')!, credential_key: 'anonymous' } }]);
    assert.equal(ids(store.listAgents()), ['x', 'y']);
    assert.equal(store.findAgentsByCredential('token:t1'), []);
    assert.equal(ids(store.findAgentsByCredential('anonymous')), ['x']);
  });

  test('agent.delete removes the agent and a re-registration goes last', async () => {
    await store.write([{ op: 'agent.put', agent: agent('x') }, { op: 'agent.put', agent: agent('y') }]);
    await store.write([{ op: 'agent.delete', id: 'x' }]);
    assert.is(store.getAgent('x'), undefined);
    assert.equal(store.findAgentsByCredential('token:x'), []);
    await store.write([{ op: 'agent.put', agent: agent('x') }]);
    assert.equal(ids(store.listAgents()), ['y', 'x']);
    await store.write([{ op: 'agent.delete', id: 'nobody' }]);
    assert.equal(ids(store.listAgents()), ['y', 'x']);
  });

  test('message.insert stores the message with its conversation and event id', async () => {
    const m = msg('m1', inThread('t1'));
    await store.write([insert(m)]);
    assert.equal(store.getMessage('m1'), { message: m, conv: 'thread:t1', event_id: 'ev-m1' });
    assert.equal(store.listMessages('thread:t1', { limit: 10 }).items, [m]);
    assert.equal(store.listMessages('room:r1', { limit: 10 }).items, []);
    assert.is(store.stats().messages, 1);
  });

  test('a duplicate message id is a conflict and nothing of its batch is applied', async () => {
    const m = msg('m1');
    await store.write(send(m));
    const before = store.stats();
    const code = await codeOf(() =>
      store.write([
        { op: 'room.put', room: room('new') },
        { op: 'agent.put', agent: agent('new') },
        insert(msg('m2')),
        { op: 'event.append', event: createdEvent(msg('m2')) },
        insert({ ...m, parts: [{ kind: 'text', text: 'retry' }] }),
        { op: 'event.append', event: createdEvent(m) },
      ]),
    );
    assert.is(code, 'conflict');
    assert.is(store.getRoom('new'), undefined);
    assert.is(store.getAgent('new'), undefined);
    assert.is(store.getMessage('m2'), undefined);
    assert.equal(store.getMessage('m1')?.message, m);
    assert.is(store.lastEventSeq(), 1);
    assert.equal(store.stats(), before);
    assert.equal(ids(store.listMessages('room:r1', { limit: 10 }).items), ['m1']);
    // The store keeps working, and seqs stay dense.
    assert.equal(await store.write(send(msg('m3'))), { event_seqs: [2] });
  });

  test('event seqs are dense from 1 across batches and returned in order', async () => {
    const e = (id: string): WriteOp => ({
      op: 'event.append',
      event: { id, type: 'room.created', network_id: NET, created_at: at(), room_id: 'r1' },
    });
    assert.equal(await store.write([e('e1')]), { event_seqs: [1] });
    assert.equal(await store.write([e('e2'), { op: 'room.put', room: room('r1') }, e('e3')]), { event_seqs: [2, 3] });
    const results = await Promise.all([store.write([e('e4')]), store.write([e('e5'), e('e6')])]);
    assert.equal(results, [{ event_seqs: [4] }, { event_seqs: [5, 6] }]);
    assert.is(store.lastEventSeq(), 6);
    assert.equal(
      store.eventsAfter(0, 100).map((s) => [s.seq, s.event.id]),
      [1, 2, 3, 4, 5, 6].map((n) => [n, `e${n}`]),
    );
    assert.equal(ids(store.eventsAfter(2, 2).map((s) => s.event)), ['e3', 'e4']);
    assert.equal(ids(store.eventsAfter(-5, 1).map((s) => s.event)), ['e1']);
    assert.equal(store.eventsAfter(6, 10), []);
    assert.equal(store.eventsAfter(0, 0), []);
    const s = store.stats();
    assert.equal([s.events, s.last_event_seq], [6, 6]);
  });

  test('events come back with their messages exactly as appended', async () => {
    const [m1, m2] = [msg('m1'), msg('m2', inDm('d1'))];
    await store.write(send(m1));
    await store.write(send(m2));
    // An event whose message is not stored, and one whose message differs from the stored one.
    const loose = msg('loose');
    const edited = { ...m1, parts: [{ kind: 'text' as const, text: 'edited copy' }] };
    await store.write([{ op: 'event.append', event: createdEvent(loose) }]);
    await store.write([{ op: 'event.append', event: { ...createdEvent(m1), id: 'ev-edited', message: edited } }]);
    const events = store.eventsAfter(0, 10);
    assert.equal(
      events.map((s) => s.event),
      [createdEvent(m1), createdEvent(m2), createdEvent(loose), { ...createdEvent(m1), id: 'ev-edited', message: edited }],
    );
    assert.equal(Object.keys(events[0]!.event), Object.keys(createdEvent(m1)));
  });

  test('an event appended before its message in the same batch still carries it', async () => {
    const m = msg('m1');
    await store.write([{ op: 'event.append', event: createdEvent(m) }, insert(m)]);
    assert.equal(store.eventsAfter(0, 1)[0]?.event, createdEvent(m));
  });

  test('thread.put keeps creation order per room and updates in place', async () => {
    await store.write([
      { op: 'thread.put', thread: thread('t1', 'r1') },
      { op: 'thread.put', thread: thread('t2', 'r2') },
      { op: 'thread.put', thread: thread('t3', 'r1') },
    ]);
    const t1 = { ...store.getThread('t1')!, message_count: 7, last_message_at: at() };
    await store.write([{ op: 'thread.put', thread: t1 }]);
    assert.equal(store.getThread('t1'), t1);
    const page = store.listThreads('r1', { limit: 10 });
    assert.equal(page, { items: [t1, store.getThread('t3')!], has_more: false, has_older: false });
    assert.equal(ids(store.listThreads('r2', { limit: 10 }).items), ['t2']);
    assert.equal(store.listThreads('none', { limit: 10 }), { items: [], has_more: false, has_older: false });
  });

  test('threads page by id cursors within their room', async () => {
    for (const id of ['t1', 't2', 't3', 't4']) await store.write([{ op: 'thread.put', thread: thread(id) }]);
    await store.write([{ op: 'thread.put', thread: thread('other', 'r2') }]);
    const page = (q: PageQuery) => {
      const p = store.listThreads('r1', q);
      return [ids(p.items), p.has_more, p.has_older];
    };
    assert.equal(page({ limit: 2 }), [['t3', 't4'], true, true]);
    assert.equal(page({ limit: 2, before: 't3' }), [['t1', 't2'], false, false]);
    assert.equal(page({ limit: 2, after: 't1' }), [['t2', 't3'], true, true]);
    assert.is(await codeOf(() => store.listThreads('r1', { limit: 2, before: 'other' })), 'unknown_cursor');
  });

  test('dm.put stores DMs in creation order and updates in place', async () => {
    await store.write([{ op: 'dm.put', dm: dm('d1') }, { op: 'dm.put', dm: dm('d2') }]);
    const d1 = { ...store.getDm('d1')!, message_count: 2 };
    await store.write([{ op: 'dm.put', dm: d1 }]);
    assert.equal(store.getDm('d1'), d1);
    assert.equal(ids(store.listDms()), ['d1', 'd2']);
    assert.is(store.getDm('d3'), undefined);
  });

  test('artifacts filter by room (room and thread targets), thread and dm, combined with and', async () => {
    const all = [
      artifact('a1', inRoom('r1')),
      artifact('a2', inThread('t1', 'r1')),
      artifact('a3', inRoom('r2')),
      artifact('a4', inDm('d1')),
      artifact('a5', inThread('t2', 'r2')),
      artifact('a6', inThread('t1', 'r1')),
    ];
    await store.write(all.map((a) => ({ op: 'artifact.insert', artifact: a }) as WriteOp));
    const list = (f: Parameters<Store['listArtifacts']>[0]) => ids(store.listArtifacts(f, { limit: 100 }).items);
    assert.equal(list({}), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    assert.equal(list({ room_id: 'r1' }), ['a1', 'a2', 'a6']);
    assert.equal(list({ room_id: 'r2' }), ['a3', 'a5']);
    assert.equal(list({ thread_id: 't1' }), ['a2', 'a6']);
    assert.equal(list({ dm_id: 'd1' }), ['a4']);
    assert.equal(list({ room_id: 'r1', thread_id: 't1' }), ['a2', 'a6']);
    assert.equal(list({ room_id: 'r2', thread_id: 't1' }), []);
    assert.equal(list({ room_id: 'r1', dm_id: 'd1' }), []);
    assert.equal(list({ dm_id: 'nope' }), []);
    assert.equal(store.listArtifacts({ room_id: 'r1' }, { limit: 100 }).items[1], all[1]);
  });

  test('artifact pages use cursors from the filtered list', async () => {
    const all = ['a1', 'a2', 'a3', 'a4', 'a5'].map((id, i) => artifact(id, i % 2 ? inRoom('r2') : inRoom('r1')));
    await store.write(all.map((a) => ({ op: 'artifact.insert', artifact: a }) as WriteOp));
    const p = store.listArtifacts({ room_id: 'r1' }, { limit: 1, before: 'a5' });
    assert.equal([ids(p.items), p.has_more, p.has_older], [['a3'], true, true]);
    const q = store.listArtifacts({ room_id: 'r1' }, { limit: 5, after: 'a1' });
    assert.equal([ids(q.items), q.has_more, q.has_older], [['a3', 'a5'], false, true]);
    assert.is(await codeOf(() => store.listArtifacts({ room_id: 'r1' }, { limit: 5, after: 'a2' })), 'unknown_cursor');
  });

  test('an empty conversation gives an empty page', () => {
    assert.equal(store.listMessages('room:r1', { limit: 10 }), { items: [], has_more: false, has_older: false });
  });

  test('exactly limit messages fit one page with nothing more', async () => {
    const ms = await conversation(3);
    assert.equal(store.listMessages('room:r1', { limit: 3 }), { items: ms, has_more: false, has_older: false });
  });

  test('one more than limit gives the newest limit, oldest first, with more older', async () => {
    const ms = await conversation(4);
    assert.equal(store.listMessages('room:r1', { limit: 3 }), { items: ms.slice(1), has_more: true, has_older: true });
  });

  test('pages walk by before, after and both, with the memory backend flags', async () => {
    await conversation(6);
    await conversation(2, inRoom('r2'), 'x');
    const page = (q: PageQuery) => {
      const p = store.listMessages('room:r1', q);
      return [ids(p.items), p.has_more, p.has_older];
    };
    assert.equal(page({ limit: 2, before: 'm5' }), [['m3', 'm4'], true, true]);
    assert.equal(page({ limit: 2, before: 'm3' }), [['m1', 'm2'], false, false]);
    assert.equal(page({ limit: 5, before: 'm3' }), [['m1', 'm2'], false, false]);
    assert.equal(page({ limit: 2, before: 'm1' }), [[], false, false]);
    assert.equal(page({ limit: 2, after: 'm2' }), [['m3', 'm4'], true, true]);
    assert.equal(page({ limit: 2, after: 'm4' }), [['m5', 'm6'], false, true]);
    assert.equal(page({ limit: 2, after: 'm6' }), [[], false, true]);
    assert.equal(page({ limit: 2, after: 'm1', before: 'm6' }), [['m2', 'm3'], true, true]);
    assert.equal(page({ limit: 9, after: 'm1', before: 'm6' }), [['m2', 'm3', 'm4', 'm5'], false, true]);
    assert.equal(page({ limit: 2, after: 'm3', before: 'm4' }), [[], false, true]);
    assert.equal(page({ limit: 2, after: 'm5', before: 'm2' }), [[], false, true]);
    assert.equal(page({ limit: 0 }), [[], true, true]);
    assert.equal(ids(store.listMessages('room:r2', { limit: 10 }).items), ['x1', 'x2']);
  });

  test('an unknown cursor or one from another conversation is refused', async () => {
    await conversation(3);
    await conversation(1, inRoom('r2'), 'x');
    assert.is(await codeOf(() => store.listMessages('room:r1', { limit: 2, before: 'nope' })), 'unknown_cursor');
    assert.is(await codeOf(() => store.listMessages('room:r1', { limit: 2, after: 'x1' })), 'unknown_cursor');
    assert.is(await codeOf(() => store.listMessages('room:r2', { limit: 2, before: 'm1' })), 'unknown_cursor');
    assert.is(await codeOf(() => store.listMessages('room:empty', { limit: 2, after: 'm1' })), 'unknown_cursor');
  });

  test('reads hand out copies the caller may change', async () => {
    const m = msg('m1');
    await store.write([...send(m), { op: 'room.put', room: room('r1') }]);
    store.getRoom('r1')!.members.push('intruder');
    store.listMessages('room:r1', { limit: 1 }).items[0]!.parts.push({ kind: 'text', text: 'x' });
    (store.eventsAfter(0, 1)[0]!.event.message as Message).mentions.push('x');
    assert.equal(store.getRoom('r1')!.members, ['a1']);
    assert.equal(store.getMessage('m1')!.message, m);
    assert.equal(store.eventsAfter(0, 1)[0]!.event.message, m);
  });

  test('sync resolves once earlier writes are durable', async () => {
    await store.write(send(msg('m1')));
    await store.sync();
    assert.is(store.stats().messages, 1);
  });

  test('after close, writes are refused, ping fails, and close again is harmless', async () => {
    await store.write(send(msg('m1')));
    await store.close();
    assert.not.ok(store.ping());
    assert.is(await codeOf(() => store.write([{ op: 'room.put', room: room('late') }])), 'unavailable');
    await store.close();
  });

  test.run();
}

for (const backend of ['memory', 'sqlite'] as const) storeSuite(backend);

// ---- sqlite only: files, crashes and faults ----

const durable = suite('store (sqlite durability)');
let dir = '';
let dbPath = '';
let opened: SqliteStore[] = [];
let logs: string[] = [];

/** Opens a store on the temp path; every store opened here is closed after the test, in order. */
/** Waits until no background checkpoint is running: two stores must not share files mid-checkpoint. */
async function checkpointsSettled(a: SqliteStore): Promise<void> {
  let seen = -1;
  await waitFor(() => {
    const now = a.stats().checkpoints!;
    const still = now === seen && listJournals(dbPath).length === 1;
    seen = now;
    return still;
  }, 'checkpoints to settle');
}

async function open(opts: Partial<Parameters<typeof openSqliteStore>[0]> = {}): Promise<SqliteStore> {
  const s = await openSqliteStore({ path: dbPath, log: (m) => logs.push(m), ...opts });
  opened.push(s);
  return s;
}

durable.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
  dbPath = join(dir, 'nested', 'dir', 'svc.db');
  opened = [];
  logs = [];
});
durable.after.each(async () => {
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a little of everything; returns what a reopened store must show. */
async function populate(s: Store, n = 5): Promise<Message[]> {
  await s.write([
    { op: 'room.put', room: room('r1') },
    { op: 'room.put', room: room('r2') },
    { op: 'agent.put', agent: agent('a1') },
    { op: 'dm.put', dm: dm('d1') },
    { op: 'thread.put', thread: thread('t1') },
    { op: 'artifact.insert', artifact: artifact('art1', inThread('t1')) },
  ]);
  const ms: Message[] = [];
  for (let i = 1; i <= n; i++) {
    const m = msg(`m${i}`, i % 2 ? inRoom('r1') : inThread('t1'));
    await s.write(send(m));
    ms.push(m);
  }
  return ms;
}

function assertPopulated(s: Store, ms: Message[]): void {
  assert.equal(ids(s.listRooms()), ['r1', 'r2']);
  assert.equal(ids(s.listAgents()), ['a1']);
  assert.equal(ids(s.listDms()), ['d1']);
  assert.equal(s.getThread('t1')?.room_id, 'r1');
  assert.equal(ids(s.listArtifacts({ room_id: 'r1' }, { limit: 10 }).items), ['art1']);
  assert.equal(
    s.listMessages('room:r1', { limit: 100 }).items,
    ms.filter((m) => m.target.kind === 'room'),
  );
  assert.equal(
    s.eventsAfter(0, 1000).map((e) => [e.seq, e.event.message]),
    ms.map((m, i) => [i + 1, m]),
  );
  assert.is(s.lastEventSeq(), ms.length);
  assert.is(s.stats().messages, ms.length);
}

durable('data survives close and reopen, and seqs continue', async () => {
  const a = await open();
  const ms = await populate(a);
  await a.close();
  assert.ok(existsSync(dbPath));
  assert.equal(listJournals(dbPath), []);
  const b = await open();
  assertPopulated(b, ms);
  assert.equal(await b.write(send(msg('next'))), { event_seqs: [ms.length + 1] });
  assert.ok(b.stats().db_bytes! > 0);
});

durable('acknowledged writes survive a crash', async () => {
  const a = await open();
  const ms = await populate(a, 20);
  // A second store on the same files, while the first never closed: what a restart after a crash sees.
  const b = await open();
  assertPopulated(b, ms);
  assert.equal(logs, []);
});

durable('concurrent writes all survive a crash', async () => {
  const a = await open();
  const ms = Array.from({ length: 50 }, (_, i) => msg(`c${i}`));
  const results = await Promise.all(ms.map((m) => a.write(send(m))));
  assert.equal(
    results.map((r) => r.event_seqs[0]),
    ms.map((_, i) => i + 1),
  );
  const b = await open();
  assert.equal(b.listMessages('room:r1', { limit: 100 }).items, ms);
  assert.is(b.lastEventSeq(), 50);
});

durable('a torn last journal record is dropped and the database opens', async () => {
  const a = await open();
  const ms = await populate(a, 3);
  const [journal] = listJournals(dbPath);
  const good = statSync(journal!.path).size;
  const half = encodeRecord(JSON.stringify({ ops: [insert(msg('torn'))] }));
  appendFileSync(journal!.path, half.subarray(0, half.length >> 1));
  const b = await open();
  assertPopulated(b, ms);
  assert.is(b.getMessage('torn'), undefined);
  assert.is(statSync(journal!.path).size, good);
  assert.is(logs.length, 1);
  assert.match(logs[0]!, /torn record.*truncating/);
  // Writes after recovery land after the last good record and survive another crash.
  await b.write(send(msg('after')));
  const c = await open();
  assert.ok(c.getMessage('after'));
  assert.is(c.lastEventSeq(), ms.length + 1);
});

durable('a journal of only garbage is emptied and the database opens', async () => {
  const a = await open();
  await a.write([{ op: 'room.put', room: room('r1') }]);
  await a.close();
  await (await open()).close(); // leaves an empty journal for the current generation
  const [journal] = listJournals(dbPath);
  appendFileSync(journal!.path, 'not a record at all');
  const b = await open();
  assert.equal(ids(b.listRooms()), ['r1']);
  assert.is(statSync(journal!.path).size, 0);
  assert.is(logs.length, 1);
});

durable('checkpoints retire old journals and a reopen keeps everything', async () => {
  const a = await open({ checkpointBytes: 2048 });
  const ms = await populate(a, 40);
  await waitFor(() => a.stats().checkpoints! >= 2, 'two checkpoints');
  // Generation 1 is gone; at most the current journal and one being retired remain.
  const gens = listJournals(dbPath).map((j) => j.gen);
  assert.ok(gens.length <= 2, `journals ${gens}`);
  assert.not.ok(gens.includes(1));
  assert.ok(a.stats().db_bytes! > 0);
  await a.close();
  // Everything is in svc.db; at most an empty journal of the current generation is left.
  assert.equal(
    listJournals(dbPath).map((j) => statSync(j.path).size),
    listJournals(dbPath).length ? [0] : [],
  );
  const b = await open();
  assertPopulated(b, ms);
  assert.equal(logs, []);
});

durable('a crash after checkpoints loses nothing', async () => {
  const a = await open({ checkpointBytes: 2048 });
  const ms = await populate(a, 40);
  await waitFor(() => a.stats().checkpoints! >= 2, 'two checkpoints');
  // Let the last background checkpoint finish: two processes must not share the files mid-checkpoint.
  await checkpointsSettled(a);
  const b = await open();
  assertPopulated(b, ms);
  assert.equal(logs, []);
});

durable('checkpoints done in the worker thread keep everything, also across a crash', async () => {
  // workerCheckpointBytes 0 sends every checkpoint to the worker (large databases use it by default).
  const a = await open({ checkpointBytes: 2048, workerCheckpointBytes: 0 });
  const ms = await populate(a, 40);
  await waitFor(() => a.stats().checkpoints! >= 2, 'two worker checkpoints');
  await checkpointsSettled(a);
  const crashed = await open();
  assertPopulated(crashed, ms);
  await crashed.close();
  await a.close();
  const b = await open();
  assertPopulated(b, ms);
  assert.equal(logs, []);
});

durable('a journal write failure rejects the batch, shows none of it, and later writes succeed', async () => {
  let full = false;
  const a = await open({ faults: { failWrites: () => full } });
  await a.write(send(msg('m1')));
  const before = a.stats();
  full = true;
  let err: unknown;
  try {
    await a.write([{ op: 'room.put', room: room('lost') }, ...send(msg('m2'))]);
  } catch (e) {
    err = e;
  }
  assert.instance(err, StoreError);
  assert.is((err as StoreError).code, 'unavailable');
  assert.match((err as StoreError).message, /ENOSPC/);
  assert.is(a.getRoom('lost'), undefined);
  assert.is(a.getMessage('m2'), undefined);
  assert.is(a.lastEventSeq(), 1);
  assert.equal(a.stats().messages, before.messages);
  full = false;
  assert.equal(await a.write(send(msg('m3'))), { event_seqs: [2] });
  const b = await open();
  assert.equal(ids(b.listMessages('room:r1', { limit: 10 }).items), ['m1', 'm3']);
  assert.equal(b.eventsAfter(0, 10).map((e) => e.event.message?.id), ['m1', 'm3']);
  assert.equal(logs.filter((l) => /torn|truncat/.test(l)), []);
});

durable('an fsync failure rejects the waiting writes and the next write retries', async () => {
  let broken = false;
  const a = await open({ faults: { failSyncs: () => broken } });
  broken = true;
  const err = await a.write(send(msg('m1'))).catch((e: unknown) => e);
  assert.instance(err, StoreError);
  assert.is((err as StoreError).code, 'unavailable');
  broken = false;
  await a.write(send(msg('m2')));
  await a.sync();
});

durable('events keep their message by reference, not a second copy', async () => {
  const a = await open();
  await a.write(send(msg('m1')));
  await a.close();
  const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
  const db = new SQL.Database(readFileSync(dbPath));
  const [row] = db.exec('SELECT message_id, body FROM events')[0]!.values;
  db.close();
  assert.is(row![0], 'm1');
  assert.is(JSON.parse(row![1] as string).message, null);
});

durable('a reopen without writes leaves the files as they were', async () => {
  const a = await open();
  await populate(a, 2);
  await a.close();
  const size = statSync(dbPath).size;
  const mtime = statSync(dbPath).mtimeMs;
  const b = await open();
  await b.close();
  assert.is(statSync(dbPath).size, size);
  assert.is(statSync(dbPath).mtimeMs, mtime);
});

durable.run();
