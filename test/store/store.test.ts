// The store contract, one suite for every backend: reads are promises, writes are intents that the
// backend applies atomically against its current state, including when they race.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message, Target } from '../../src/protocol/types.js';
import { openStore } from '../../src/store/open.js';
import { StoreError, type PageQuery, type Store, type StoredEvent, type WriteOp } from '../../src/store/types.js';
import {
  appendOp,
  artifact,
  at,
  claim,
  codeOf,
  createRoom,
  event,
  ids,
  inDm,
  inRoom,
  inThread,
  members,
  membersEvent,
  msg,
  removeAgent,
  removeRoom,
  send,
  settled,
  waitFor,
} from '../helpers/store-fixtures.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';

export const BACKENDS = ['memory', 'sqlite', 'postgres'] as const;

function storeSuite(backend: (typeof BACKENDS)[number]): void {
  const test = suite(`store (${backend})`);
  let dir = '';
  let store: Store;
  let pgs: PgSchema | undefined;

  test.before.each(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    // postgres: a fresh schema per test on the test server (test/helpers/pg.ts).
    pgs = backend === 'postgres' ? await freshSchema() : undefined;
    store = await openStore({
      backend,
      path: join(dir, 'data', 'svc.db'),
      checkpoint_bytes: 64 * 1024 * 1024,
      ...(pgs ? { url: pgs.url, schema: pgs.schema } : {}),
    });
  });
  test.after.each(async () => {
    await store.close();
    await pgs?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function conversation(n: number, target: Target = inRoom(), prefix = 'm'): Promise<Message[]> {
    const out: Message[] = [];
    for (let i = 1; i <= n; i++) {
      const m = msg(`${prefix}${i}`, target);
      await store.write([send(m)]);
      out.push(m);
    }
    return out;
  }

  const seqs = (r: { events: StoredEvent[] }) => r.events.map((e) => e.seq);

  test('a new store is empty and healthy', async () => {
    assert.is(store.backend, backend);
    assert.ok(await store.ping());
    assert.equal(await store.listRooms(), []);
    assert.equal(await store.listAgents(), []);
    assert.equal(await store.listDms(), []);
    assert.is(await store.getRoom('r1'), undefined);
    assert.is(await store.getMessage('m1'), undefined);
    assert.is(await store.getPairingState('p1'), undefined);
    assert.equal(await store.eventsAfter(0, 10), []);
    assert.is(await store.lastEventSeq(), 0);
    assert.is(store.feed.head, 0);
    const s = await store.stats();
    assert.equal([s.backend, s.messages, s.events, s.last_event_seq], [backend, 0, 0, 0]);
  });

  test('an empty batch applies nothing and resolves', async () => {
    assert.equal(await store.write([]), { outcomes: [], events: [] });
  });

  // ---- rooms ----

  test('room.create stores the room with its event and refuses an active id', async () => {
    const r = await store.write([createRoom('a', { members: ['x', 'y'] }), createRoom('b')]);
    assert.equal(seqs(r), [1, 2]);
    assert.equal(
      r.events.map((e) => [e.event.type, e.event.room_id]),
      [
        ['room.created', 'a'],
        ['room.created', 'b'],
      ],
    );
    const a = (await store.getRoom('a'))!;
    assert.equal([a.name, a.members, a.federation_pairings], ['Room a', ['x', 'y'], []]);
    assert.equal(r.outcomes[0], { op: 'room.create', room: a, revived: false });
    assert.equal(ids(await store.listRooms()), ['a', 'b']);
    assert.is(await codeOf(() => store.write([createRoom('c'), createRoom('a')])), 'room_exists');
    assert.is(await store.getRoom('c'), undefined);
  });

  test('a removed room leaves listings, stays readable, and is revived with its creation time', async () => {
    await store.write([createRoom('a', { federation_pairings: ['p1'] }), createRoom('b')]);
    const before = (await store.getRoom('a'))!;
    const r = await store.write([removeRoom('a')]);
    assert.equal(r.outcomes[0], { op: 'room.remove', room: before });
    assert.equal(ids(await store.listRooms()), ['b']);
    assert.ok((await store.getRoom('a'))!.removed_at);
    assert.is(await codeOf(() => store.write([removeRoom('a')])), 'not_found');
    await store.write([
      {
        op: 'room.create',
        room: { id: 'a', members: [], visibility: 'private', write_policy: 'members' },
        at: at(),
        event: (room) => event('room.created', { room_id: room.id }),
      },
    ]);
    const revived = (await store.getRoom('a'))!;
    assert.equal(
      [revived.name, revived.created_at, revived.federation_pairings, revived.removed_at],
      ['Room a', before.created_at, ['p1'], undefined],
    );
  });

  test('room.members.change applies against the current members and skips no-ops', async () => {
    await store.write([createRoom('r1', { members: ['a1', 'a2'] })]);
    const r = await store.write([members('r1', ['a3', 'a1'], ['a2', 'zz'])]);
    assert.equal(r.outcomes[0], { op: 'room.members.change', room: (await store.getRoom('r1'))!, added: ['a3'], removed: ['a2'] });
    assert.equal((await store.getRoom('r1'))!.members, ['a1', 'a3']);
    assert.equal(
      r.events.map((e) => [e.event.added, e.event.removed]),
      [[['a3'], ['a2']]],
    );
    const none = await store.write([members('r1', ['a1'], ['nobody'])]);
    assert.equal(none.events, []);
    assert.is(await codeOf(() => store.write([members('nope', ['a1'])])), 'not_found');
  });

  test('concurrent member changes of one room all land', async () => {
    await store.write([createRoom('r1', { members: [] })]);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((m) => store.write([members('r1', [m])])));
    assert.equal([...(await store.getRoom('r1'))!.members].sort(), ['a', 'b', 'c', 'd', 'e']);
  });

  test('room.declare creates, updates only what is given, adds or sets members, and keeps a removed room removed when asked', async () => {
    const declare = (room: Parameters<typeof declareOp>[0], mode: 'set' | 'add' = 'set', keep = false) =>
      store.write([declareOp(room, mode, keep)]);
    const r1 = await declare({ id: 'd', members: ['a'] });
    assert.equal(r1.outcomes[0]!.op === 'room.declare' && r1.outcomes[0]!.action, 'created');
    assert.equal((await store.getRoom('d'))!.visibility, 'public');
    const same = await declare({ id: 'd', members: ['a'] });
    assert.equal([same.outcomes[0]!.op === 'room.declare' && same.outcomes[0]!.action, same.events], ['unchanged', []]);
    const added = await declare({ id: 'd', members: ['b'], visibility: 'private' }, 'add');
    assert.equal((await store.getRoom('d'))!.members, ['a', 'b']);
    assert.equal(
      added.events.map((e) => [e.event.type, e.event.added, e.event.removed]),
      [['room.members.updated', ['b'], []]],
    );
    await declare({ id: 'd', members: ['b'] }, 'set');
    assert.equal((await store.getRoom('d'))!.members, ['b']);
    assert.is((await store.getRoom('d'))!.visibility, 'private');
    await store.write([removeRoom('d')]);
    const kept = await declare({ id: 'd', members: ['c'] }, 'add', true);
    assert.equal([kept.outcomes[0]!.op === 'room.declare' && kept.outcomes[0]!.action, kept.events], ['unchanged', []]);
    const revived = await declare({ id: 'd', members: ['c'] }, 'set', false);
    assert.equal(revived.outcomes[0]!.op === 'room.declare' && revived.outcomes[0]!.action, 'created');
    assert.equal(ids(await store.listRooms()), ['d']);
  });

  // ---- agents ----

  test('agent.claim stores a free id, is idempotent for its credential and refuses another', async () => {
    const r = await store.write([claim('x', 'token:t1', 'Ex')]);
    assert.equal(r.outcomes[0]!.op === 'agent.claim' && r.outcomes[0]!.created, true);
    const again = await store.write([claim('x', 'token:t1')]);
    assert.equal(again.outcomes[0], { op: 'agent.claim', agent: (await store.getAgent('x'))!, created: false });
    assert.is((await store.getAgent('x'))!.name, 'Ex');
    assert.is(await codeOf(() => store.write([claim('x', 'token:t2')])), 'agent_taken');
    await store.write([claim('y', 'token:t2'), claim('z', 'token:t1')]);
    assert.equal(ids(await store.listAgents()), ['x', 'y', 'z']);
    assert.equal(ids(await store.findAgentsByCredential('token:t1')), ['x', 'z']);
    assert.equal(await store.findAgentsByCredential('token:none'), []);
  });

  test('concurrent claims of one agent id by two credentials: one wins, one conflicts', async () => {
    const results = await settled([store.write([claim('dup', 'agent:one')]), store.write([claim('dup', 'agent:two')])]);
    assert.equal([...results].sort(), ['agent_taken', 'ok']);
    const winner = results[0] === 'ok' ? 'agent:one' : 'agent:two';
    assert.is((await store.getAgent('dup'))!.credential_key, winner);
    assert.equal(ids(await store.listAgents()), ['dup']);
  });

  test('agent.remove deletes the registration and takes the agent out of every room', async () => {
    await store.write([
      claim('x'),
      claim('y'),
      createRoom('r1', { members: ['x', 'y'] }),
      createRoom('r2', { members: ['x'] }),
      createRoom('r3', { members: ['y'] }),
    ]);
    const r = await store.write([removeAgent('x')]);
    assert.equal(
      r.events.map((e) => [e.event.type, e.event.room_id ?? e.event.agent_id]),
      [
        ['room.members.updated', 'r1'],
        ['room.members.updated', 'r2'],
        ['agent.removed', 'x'],
      ],
    );
    assert.is(await store.getAgent('x'), undefined);
    assert.equal(
      (await store.listRooms()).map((room) => room.members),
      [['y'], [], ['y']],
    );
    assert.is(await codeOf(() => store.write([removeAgent('x')])), 'not_found');
    await store.write([claim('x')]);
    assert.equal(ids(await store.listAgents()), ['y', 'x']);
  });

  // ---- messages ----

  test('message.insert stores a room message with its event and artifacts', async () => {
    const m = msg('m1');
    const r = await store.write([send(m, [artifact('art1', m.target, 'm1')])]);
    assert.equal(r.outcomes[0], {
      op: 'message.insert',
      status: 'stored',
      record: { message: m, conv: 'room:r1', event_id: 'ev-m1' },
      thread_created: false,
      dm_created: false,
    });
    assert.equal(
      r.events.map((e) => [e.seq, e.event.type, e.event.message]),
      [[1, 'message.created', m]],
    );
    assert.equal(await store.getMessage('m1'), { message: m, conv: 'room:r1', event_id: 'ev-m1' });
    assert.equal(ids((await store.listArtifacts({ room_id: 'r1' }, { limit: 10 })).items), ['art1']);
    assert.is((await store.stats()).messages, 1);
  });

  test('the first message of a thread creates it and later ones count on it', async () => {
    const r1 = await store.write([send(msg('m1', inThread('t1')))]);
    assert.equal(
      r1.events.map((e) => e.event.type),
      ['thread.created', 'message.created'],
    );
    assert.ok(r1.outcomes[0]!.op === 'message.insert' && r1.outcomes[0]!.status === 'stored' && r1.outcomes[0]!.thread_created);
    const m2 = msg('m2', inThread('t1'));
    const r2 = await store.write([send(m2)]);
    assert.equal(
      r2.events.map((e) => e.event.type),
      ['message.created'],
    );
    const t = (await store.getThread('t1'))!;
    assert.equal([t.room_id, t.message_count, t.last_message_at], ['r1', 2, m2.created_at]);
    assert.equal(ids((await store.listMessages('thread:t1', { limit: 10 })).items), ['m1', 'm2']);
    assert.is(await codeOf(() => store.write([send(msg('m3', inThread('t1', 'r2')))])), 'thread_room');
    assert.is(await store.getMessage('m3'), undefined);
  });

  test('two concurrent first messages into one new thread make one thread counting both', async () => {
    const results = await Promise.all([store.write([send(msg('x1', inThread('new')))]), store.write([send(msg('x2', inThread('new')))])]);
    const created = results.map(
      (r) => r.outcomes[0]!.op === 'message.insert' && r.outcomes[0]!.status === 'stored' && r.outcomes[0]!.thread_created,
    );
    assert.equal([...created].sort(), [false, true]);
    assert.is((await store.getThread('new'))!.message_count, 2);
    assert.equal(ids((await store.listThreads('r1', { limit: 10 })).items), ['new']);
    assert.equal((await store.eventsAfter(0, 10)).filter((e) => e.event.type === 'thread.created').length, 1);
  });

  test('a DM is created by its first message and counted by the next, also when they race', async () => {
    const results = await Promise.all(['d1', 'd2', 'd3'].map((id) => store.write([send(msg(id, inDm('dm1')))])));
    assert.equal(
      results.filter((r) => r.outcomes[0]!.op === 'message.insert' && r.outcomes[0]!.status === 'stored' && r.outcomes[0]!.dm_created)
        .length,
      1,
    );
    const d = (await store.getDm('dm1'))!;
    assert.equal([d.participant_ids, d.message_count], [['net1:a', 'net1:b'], 3]);
    assert.equal(ids(await store.listDms()), ['dm1']);
  });

  test('a retried message id reports the stored message and applies nothing', async () => {
    const m = msg('m1', inThread('t1'));
    await store.write([send(m)]);
    const before = await store.lastEventSeq();
    const retry = { ...m, parts: [{ kind: 'text' as const, text: 'retry' }] };
    const r = await store.write([send(retry)]);
    assert.equal(r.outcomes[0], { op: 'message.insert', status: 'exists', record: { message: m, conv: 'thread:t1', event_id: 'ev-m1' } });
    assert.equal(r.events, []);
    assert.is(await store.lastEventSeq(), before);
    assert.is((await store.getThread('t1'))!.message_count, 1);
  });

  test('concurrent identical retries store one message', async () => {
    const m = msg('same', inThread('t9'));
    const results = await Promise.all(Array.from({ length: 5 }, () => store.write([send(m)])));
    const statuses = results.map((r) => (r.outcomes[0] as { status: string }).status);
    assert.equal(statuses.filter((s) => s === 'stored').length, 1);
    assert.equal(statuses.filter((s) => s === 'exists').length, 4);
    assert.equal(ids((await store.listMessages('thread:t9', { limit: 10 })).items), ['same']);
    assert.is((await store.getThread('t9'))!.message_count, 1);
    assert.is((await store.stats()).messages, 1);
  });

  test('a refused op refuses its whole batch', async () => {
    await store.write([claim('x', 'token:a')]);
    const code = await codeOf(() => store.write([createRoom('new'), send(msg('m1', inThread('t1'))), claim('x', 'token:b')]));
    assert.is(code, 'agent_taken');
    assert.is(await store.getRoom('new'), undefined);
    assert.is(await store.getMessage('m1'), undefined);
    assert.is(await store.getThread('t1'), undefined);
    assert.is(await store.lastEventSeq(), 0);
    assert.equal(seqs(await store.write([appendOp()])), [1]);
  });

  test('event seqs are dense from 1 across batches and returned in order', async () => {
    assert.equal(seqs(await store.write([appendOp()])), [1]);
    assert.equal(seqs(await store.write([appendOp(), createRoom('r1'), appendOp()])), [2, 3, 4]);
    const results = await Promise.all([store.write([appendOp()]), store.write([appendOp(), appendOp()])]);
    assert.equal(results.map(seqs), [[5], [6, 7]]);
    assert.is(await store.lastEventSeq(), 7);
    assert.equal(
      (await store.eventsAfter(2, 2)).map((e) => e.seq),
      [3, 4],
    );
    assert.equal(
      (await store.eventsAfter(-5, 1)).map((e) => e.seq),
      [1],
    );
    assert.equal(await store.eventsAfter(7, 10), []);
    assert.equal(await store.eventsAfter(0, 0), []);
  });

  test('events come back with their messages exactly as appended', async () => {
    const [m1, m2] = [msg('m1'), msg('m2', inDm('d1'))];
    await store.write([send(m1)]);
    await store.write([send(m2)]);
    const edited = { ...m1, parts: [{ kind: 'text' as const, text: 'edited copy' }] };
    await store.write([{ op: 'event.append', event: { ...event('message.created'), message: edited } }]);
    const events = await store.eventsAfter(0, 10);
    assert.equal(
      events.map((s) => s.event.message?.id),
      ['m1', undefined, 'm2', 'm1'],
    );
    assert.equal(events[0]!.event, send(m1).event);
    assert.equal(events[3]!.event.message, edited);
  });

  // ---- listings ----

  test('room and DM pages filter before paging and refuse cursors outside the filter', async () => {
    await store.write([
      createRoom('pub1'),
      createRoom('priv1', { visibility: 'private', members: ['a1'] }),
      createRoom('priv2', { visibility: 'private', members: ['net1:b1'] }),
      createRoom('fed', { visibility: 'private', members: [], federation_pairings: ['p1'] }),
      createRoom('pub2'),
    ]);
    const page = async (f: Parameters<Store['pageRooms']>[0], q: PageQuery = { limit: 10 }) => ids((await store.pageRooms(f, q)).items);
    assert.equal(await page({ all: true }), ['pub1', 'priv1', 'priv2', 'fed', 'pub2']);
    assert.equal(await page({}), ['pub1', 'pub2']);
    assert.equal(await page({ members: ['b1', 'net1:b1'] }), ['pub1', 'priv2', 'pub2']);
    assert.equal(await page({ pairing: 'p1' }), ['pub1', 'fed', 'pub2']);
    assert.equal(await page({}, { limit: 1 }), ['pub2']);
    assert.equal(await page({}, { limit: 1, before: 'pub2' }), ['pub1']);
    assert.is(await codeOf(() => store.pageRooms({}, { limit: 1, before: 'priv1' })), 'unknown_cursor');
    for (const id of ['d1', 'd2'])
      await store.write([send(msg(`m-${id}`, inDm(id, id === 'd1' ? ['net1:a', 'net1:b'] : ['net1:c', 'net1:d'])))]);
    assert.equal(ids((await store.pageDms({ all: true }, { limit: 10 })).items), ['d1', 'd2']);
    assert.equal(ids((await store.pageDms({ participants: ['net1:c'] }, { limit: 10 })).items), ['d2']);
    assert.equal(ids((await store.pageDms({}, { limit: 10 })).items), []);
  });

  test('threads page by id cursors within their room', async () => {
    for (const id of ['t1', 't2', 't3', 't4']) await store.write([send(msg(`m-${id}`, inThread(id)))]);
    await store.write([send(msg('m-other', inThread('other', 'r2')))]);
    const page = async (q: PageQuery) => {
      const p = await store.listThreads('r1', q);
      return [ids(p.items), p.has_more, p.has_older];
    };
    assert.equal(await page({ limit: 2 }), [['t3', 't4'], true, true]);
    assert.equal(await page({ limit: 2, before: 't3' }), [['t1', 't2'], false, false]);
    assert.equal(await page({ limit: 2, after: 't1' }), [['t2', 't3'], true, true]);
    assert.is(await codeOf(() => store.listThreads('r1', { limit: 2, before: 'other' })), 'unknown_cursor');
  });

  test('artifacts filter by room (room and thread targets), thread and dm, combined with and', async () => {
    const targets: [string, Target][] = [
      ['a1', inRoom('r1')],
      ['a2', inThread('t1', 'r1')],
      ['a3', inRoom('r2')],
      ['a4', inDm('d1')],
      ['a5', inThread('t2', 'r2')],
      ['a6', inThread('t1', 'r1')],
    ];
    for (const [id, t] of targets) await store.write([send(msg(`m-${id}`, t), [artifact(id, t)])]);
    const list = async (f: Parameters<Store['listArtifacts']>[0]) => ids((await store.listArtifacts(f, { limit: 100 })).items);
    assert.equal(await list({}), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    assert.equal(await list({ room_id: 'r1' }), ['a1', 'a2', 'a6']);
    assert.equal(await list({ thread_id: 't1' }), ['a2', 'a6']);
    assert.equal(await list({ dm_id: 'd1' }), ['a4']);
    assert.equal(await list({ room_id: 'r2', thread_id: 't1' }), []);
    const p = await store.listArtifacts({ room_id: 'r1' }, { limit: 1, before: 'a6' });
    assert.equal([ids(p.items), p.has_more, p.has_older], [['a2'], true, true]);
    assert.is(await codeOf(() => store.listArtifacts({ room_id: 'r1' }, { limit: 5, after: 'a3' })), 'unknown_cursor');
  });

  test('message pages walk by before, after and both', async () => {
    await conversation(6);
    await conversation(2, inRoom('r2'), 'x');
    const page = async (q: PageQuery) => {
      const p = await store.listMessages('room:r1', q);
      return [ids(p.items), p.has_more, p.has_older];
    };
    assert.equal(await page({ limit: 3 }), [['m4', 'm5', 'm6'], true, true]);
    assert.equal(await page({ limit: 6 }), [['m1', 'm2', 'm3', 'm4', 'm5', 'm6'], false, false]);
    assert.equal(await page({ limit: 2, before: 'm5' }), [['m3', 'm4'], true, true]);
    assert.equal(await page({ limit: 2, before: 'm3' }), [['m1', 'm2'], false, false]);
    assert.equal(await page({ limit: 2, after: 'm2' }), [['m3', 'm4'], true, true]);
    assert.equal(await page({ limit: 2, after: 'm6' }), [[], false, true]);
    assert.equal(await page({ limit: 9, after: 'm1', before: 'm6' }), [['m2', 'm3', 'm4', 'm5'], false, true]);
    assert.equal(await page({ limit: 0 }), [[], true, true]);
    assert.is(await codeOf(() => store.listMessages('room:r1', { limit: 2, after: 'x1' })), 'unknown_cursor');
    assert.is(await codeOf(() => store.listMessages('room:r2', { limit: 2, before: 'nope' })), 'unknown_cursor');
  });

  test('reads hand out copies the caller may change', async () => {
    const m = msg('m1');
    await store.write([send(m), createRoom('r1')]);
    (await store.getRoom('r1'))!.members.push('intruder');
    (await store.listMessages('room:r1', { limit: 1 })).items[0]!.parts.push({ kind: 'text', text: 'x' });
    ((await store.eventsAfter(0, 1))[0]!.event.message as Message).mentions.push('x');
    assert.equal((await store.getRoom('r1'))!.members, ['a1']);
    assert.equal((await store.getMessage('m1'))!.message, m);
    assert.equal((await store.eventsAfter(0, 1))[0]!.event.message, m);
  });

  test('pairing state is kept, merged and forgotten', async () => {
    await store.write([{ op: 'pairing.state', pairing_id: 'p1', set: { seq: 5, answered: false } }]);
    await store.write([{ op: 'pairing.state', pairing_id: 'p1', set: { answered: true } }]);
    assert.equal(await store.getPairingState('p1'), { seq: 5, answered: true });
    await store.write([{ op: 'pairing.state', pairing_id: 'p1', delete: true }]);
    assert.is(await store.getPairingState('p1'), undefined);
  });

  test('an agent read state is created once, moves its cursor only from the expected value, and keeps markers moving forward', async () => {
    const init = { cursor: 3, since: '2026-01-01T00:00:00.000Z', read: {} };
    assert.is(await store.getAgentReadState('beta'), undefined);
    await store.write([{ op: 'agent.read_state', agent_id: 'beta', init }]);
    // A second creation keeps what is stored (its init is not applied again).
    await store.write([{ op: 'agent.read_state', agent_id: 'beta', init: { ...init, cursor: 9 } }]);
    assert.equal(await store.getAgentReadState('beta'), init);
    await store.write([{ op: 'agent.read_state', agent_id: 'beta', init, expect_cursor: 3, cursor: 7 }]);
    try {
      await store.write([{ op: 'agent.read_state', agent_id: 'beta', init, expect_cursor: 3, cursor: 8 }]);
      assert.unreachable('a cursor that moved refuses the write');
    } catch (err) {
      assert.instance(err, StoreError);
      assert.is((err as StoreError).code, 'conflict');
    }
    const at = (s: string) => `2026-01-01T00:00:0${s}.000Z`;
    await store.write([{ op: 'agent.read_state', agent_id: 'beta', init, read: { 'room:r1': { id: 'm2', at: at('2') } } }]);
    await store.write([{ op: 'agent.read_state', agent_id: 'beta', init, read: { 'room:r1': { id: 'm1', at: at('1') } } }]);
    const st = await store.getAgentReadState('beta');
    assert.is(st!.cursor, 7);
    assert.equal(st!.read, { 'room:r1': { id: 'm2', at: at('2') } }, 'a marker never moves back');
    assert.is(await store.getAgentReadState('gamma'), undefined);
    // Removing the agent forgets it: a later agent of that id starts afresh.
    await store.write([claim('beta', 'token:beta')]);
    await store.write([removeAgent('beta')]);
    assert.is(await store.getAgentReadState('beta'), undefined);
  });

  // ---- the feed and leases ----

  test('the feed delivers every stored event once in order to a late subscriber, then live', async () => {
    for (let i = 0; i < 700; i++) await store.write([appendOp()]);
    const got: number[] = [];
    const sub = store.feed.subscribe(0, (events) => got.push(...events.map((e) => e.seq)));
    // Writes while the backlog is being read.
    const writes = Promise.all(Array.from({ length: 50 }, () => store.write([appendOp(), appendOp()])));
    await writes;
    await waitFor(() => got.length >= 800, 'the feed to catch up');
    await store.write([send(msg('live'))]);
    await waitFor(() => got.length >= 801, 'a live event');
    sub.close();
    await store.write([appendOp()]);
    assert.equal(
      got,
      Array.from({ length: 801 }, (_, i) => i + 1),
    );
    assert.is(store.feed.head, 802);
  });

  test('a feed subscriber from a cursor gets only what follows it, and a write resolves after its events reached the feed', async () => {
    for (let i = 0; i < 5; i++) await store.write([appendOp()]);
    const got: StoredEvent[] = [];
    store.feed.subscribe(3, (events) => got.push(...events));
    await waitFor(() => got.length === 2, 'the backlog');
    const r = await store.write([createRoom('r1')]);
    assert.equal(
      got.map((e) => e.seq),
      [4, 5, 6],
    );
    assert.is(got[2]!.event, r.events[0]!.event);
  });

  test('onWritten wakes once, for an event after its seq, by the time the write resolves; a closed one never', async () => {
    for (let i = 0; i < 3; i++) await store.write([appendOp()]);
    let behind = 0;
    let ahead = 0;
    let closed = 0;
    store.feed.onWritten(1, () => behind++);
    store.feed.onWritten(3, () => ahead++);
    store.feed.onWritten(3, () => closed++).close();
    await waitFor(() => behind === 1, 'the wake for what is stored already');
    assert.is(ahead, 0);
    await store.write([appendOp()]);
    assert.is(ahead, 1);
    await store.write([appendOp()]);
    assert.equal([behind, ahead, closed], [1, 1, 0]);
  });

  test('a lease has one holder until it is released or expires', async () => {
    const a = await store.leases.acquire('attach:x', 'cred:a', 60_000);
    assert.ok(a.ok);
    assert.equal(await store.leases.acquire('attach:x', 'cred:b', 60_000), { ok: false, owner: 'cred:a' });
    assert.equal(await store.leases.acquire('attach:x', 'cred:a', 60_000), { ok: false, owner: 'cred:a' });
    assert.ok((await store.leases.acquire('attach:y', 'cred:b', 60_000)).ok);
    if (!a.ok) return;
    assert.ok(await a.lease.renew());
    await a.lease.release();
    const b = await store.leases.acquire('attach:x', 'cred:b', 20);
    assert.ok(b.ok);
    assert.not.ok(await a.lease.renew());
    await new Promise((r) => setTimeout(r, 40));
    const c = await store.leases.acquire('attach:x', 'cred:c', 60_000);
    assert.ok(c.ok);
    if (b.ok) assert.not.ok(await b.lease.renew());
  });

  test('after close, writes are refused, ping fails, and close again is harmless', async () => {
    await store.write([send(msg('m1'))]);
    await store.close();
    assert.not.ok(await store.ping());
    assert.is(await codeOf(() => store.write([createRoom('late')])), 'unavailable');
    await store.close();
  });

  test.run();
}

function declareOp(
  room: { id: string; members?: string[]; visibility?: 'public' | 'private' },
  mode: 'set' | 'add',
  keep: boolean,
): WriteOp {
  return {
    op: 'room.declare',
    room,
    members_mode: mode,
    keep_removed: keep,
    at: at(),
    events: { created: (r) => event('room.created', { room_id: r.id }), members: membersEvent },
  };
}

for (const backend of BACKENDS) storeSuite(backend);
