// Edits and deletes of stored messages (#40 parts 1 and 2) on every backend, through the store as
// the server uses it: the edit op keeps the replaced version and replaces the artifacts, a delete
// leaves a tombstone in the message's place and drops its artifacts, versions, search entry and
// reactions, counts follow, batches see their own earlier effects, refusals refuse the whole batch,
// and a sqlite store replays all of it from its journal.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery } from '../../src/protocol/search-text.js';
import type { Artifact, Message, Part } from '../../src/protocol/types.js';
import { reactionsPart } from '../../src/store/reactions/part.js';
import type { MessageDeleteOp, MessageEditOp, Store, WriteOp } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import {
  artifact,
  at,
  codeOf,
  createRoom,
  event,
  ids,
  inDm,
  inRoom,
  inThread,
  msg,
  NET,
  reactionChange,
  send,
} from '../helpers/store-fixtures.js';

const text = (t: string): Part[] => [{ kind: 'text', text: t }];

function edit(id: string, words: string, extra: Partial<MessageEditOp> = {}): MessageEditOp {
  return {
    op: 'message.edit',
    id,
    parts: [...text(words), { kind: 'url', url: `https://example.com/${id}` }],
    mentions: [],
    at: at(),
    artifacts: (m: Message): Artifact[] => [{ ...artifact(`${m.id}-v${m.version}`, m.target, m.id), part_index: 1, kind: 'url' }],
    event: (message, mentions_added) => event('message.edited', { message, mentions_added }),
    ...extra,
  };
}

const del = (id: string): MessageDeleteOp => ({
  op: 'message.delete',
  id,
  at: at(),
  event: (message) => event('message.deleted', { message }),
});

const search = async (store: Store, words: string) =>
  ids((await store.searchMessages({ terms: parseQuery(words)!, scope: { room_ids: ['r1'], dm_ids: ['dm1'] }, limit: 50 })).items);

const artifactIds = async (store: Store, room_id = 'r1') => ids((await store.listArtifacts({ room_id }, { limit: 100 })).items);

for (const backend of BACKENDS) {
  const test = suite(`message edits and deletes (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-lifecycle-contract-', async (s) => {
    store = s;
    await store.write([createRoom('r1', { members: ['a1', 'a2'] }), send(msg('m1')), send(msg('m2'), [artifact('m2-a', inRoom(), 'm2')])]);
  });

  test('an edit replaces parts and mentions, keeps the earlier version and counts versions', async () => {
    const r = await store.write([edit('m1', 'first edit', { mentions: ['svc://net1/agents/a2'] })]);
    const o = r.outcomes[0]!;
    assert.is(o.op, 'message.edit');
    if (o.op !== 'message.edit') return;
    assert.is(o.record.message.version, 2);
    assert.equal(o.mentions_added, ['svc://net1/agents/a2']);
    assert.equal(o.previous.parts, text('text of m1'));
    assert.equal(
      r.events.map((e) => [e.event.type, e.event.message?.version, e.event.mentions_added]),
      [['message.edited', 2, ['svc://net1/agents/a2']]],
    );
    // A second edit that drops the mention and a third that brings it back wake nobody again.
    await store.write([edit('m1', 'second edit')]);
    const third = await store.write([edit('m1', 'third edit', { mentions: ['svc://net1/agents/a2'] })]);
    assert.equal(third.events[0]!.event.mentions_added, []);
    const m = (await store.getMessage('m1'))!.message;
    assert.equal([m.version, m.parts[0]!.text, typeof m.edited_at], [4, 'third edit', 'string']);
    const versions = await store.messageVersions('m1');
    assert.equal(
      versions.map((v) => [v.version, v.parts[0]!.text]),
      [
        [1, 'text of m1'],
        [2, 'first edit'],
        [3, 'second edit'],
      ],
    );
    assert.is(versions[0]!.created_at, m.created_at);
  });

  test("an edit replaces the message's artifacts", async () => {
    await store.write([edit('m2', 'with a link')]);
    assert.equal(await artifactIds(store), ['m2-v2']);
  });

  test('history and the event feed show the edited message', async () => {
    await store.write([edit('m1', 'changed words')]);
    const page = await store.listMessages('room:r1', { limit: 10 });
    assert.equal(
      page.items.map((m) => m.parts[0]!.text),
      ['changed words', 'text of m2'],
    );
    const events = await store.eventsAfter(0, 100);
    const edited = events.find((e) => e.event.type === 'message.edited')!;
    assert.is(edited.event.message!.parts[0]!.text, 'changed words');
  });

  test('search finds the new words and not the old', async () => {
    assert.equal(await search(store, 'text m1'), ['m1']);
    await store.write([edit('m1', 'zebra crossing')]);
    assert.equal(await search(store, 'zebra'), ['m1']);
    assert.equal(await search(store, 'text m1'), []);
    assert.equal(await search(store, 'text'), ['m2']);
  });

  test('an edit of an unknown message is not_found; of a changed version, conflict; the batch is refused whole', async () => {
    assert.is(await codeOf(() => store.write([edit('m1', 'a'), edit('nope', 'b')])), 'not_found');
    assert.is((await store.getMessage('m1'))!.message.version, undefined);
    assert.is(await codeOf(() => store.write([edit('m1', 'a', { expect_version: 2 })])), 'conflict');
    await store.write([edit('m1', 'a', { expect_version: 1 })]);
    assert.is(await codeOf(() => store.write([edit('m1', 'b', { expect_version: 1 })])), 'conflict');
  });

  test('a later op of a batch sees an earlier edit', async () => {
    const r = await store.write([edit('m1', 'one'), edit('m1', 'two', { expect_version: 2 })]);
    assert.equal(
      r.outcomes.map((o) => (o.op === 'message.edit' ? o.record.message.version : 0)),
      [2, 3],
    );
    assert.equal(
      (await store.messageVersions('m1')).map((v) => v.version),
      [1, 2],
    );
  });

  test('a delete leaves a tombstone in place and drops artifacts, versions, search and reactions', async () => {
    await store.write([edit('m2', 'edited once'), reactionChange('m2', '👍', 'net1:a1', 'add', 20)]);
    const r = await store.write([del('m2')]);
    const o = r.outcomes[0]!;
    assert.ok(o.op === 'message.delete' && o.deleted);
    const tomb = (await store.getMessage('m2'))!.message;
    assert.equal([tomb.parts, tomb.mentions, typeof tomb.deleted_at, tomb.from.id, tomb.target], [[], [], 'string', 'a1', inRoom()]);
    assert.equal(
      r.events.map((e) => [e.event.type, e.event.message?.deleted_at]),
      [['message.deleted', tomb.deleted_at]],
    );
    assert.equal(ids((await store.listMessages('room:r1', { limit: 10 })).items), ['m1', 'm2']);
    assert.equal(await artifactIds(store), []);
    assert.equal(await store.messageVersions('m2'), []);
    assert.equal(await search(store, 'edited'), []);
    assert.equal(await store.part(reactionsPart)!.list(['m2']), []);
  });

  test('a tombstone is not deleted twice, cannot be edited and takes no reactions', async () => {
    await store.write([del('m1')]);
    const again = await store.write([del('m1')]);
    assert.ok(again.outcomes[0]!.op === 'message.delete' && !again.outcomes[0]!.deleted);
    assert.is(again.events.length, 0);
    assert.is(await codeOf(() => store.write([edit('m1', 'back')])), 'conflict');
    assert.is(await codeOf(() => store.write([reactionChange('m1', '👍', 'net1:a1', 'add', 20)])), 'not_found');
    assert.is(await codeOf(() => store.write([del('nope')])), 'not_found');
  });

  test("a deleted thread or DM message is no longer counted, and the thread's replies stay", async () => {
    const root = msg('t-root', inThread('t1'));
    await store.write([send(root), send(msg('t-reply', inThread('t1'))), send(msg('d1', inDm('dm1'))), send(msg('d2', inDm('dm1')))]);
    await store.write([del('t-root'), del('d1')]);
    assert.is((await store.getThread('t1'))!.message_count, 1);
    assert.is((await store.getDm('dm1'))!.message_count, 1);
    assert.equal(ids((await store.listMessages('thread:t1', { limit: 10 })).items), ['t-root', 't-reply']);
  });

  if (backend !== 'memory') {
    test('edits and deletes read the same after a reopen (sqlite replays its journal)', async () => {
      await store.write([edit('m1', 'kept edit', { mentions: [`svc://${NET}/agents/a2`] }), del('m2')]);
      const before = [
        await store.getMessage('m1'),
        await store.getMessage('m2'),
        await store.messageVersions('m1'),
        await artifactIds(store),
      ];
      await store.close();
      store = await open();
      const after = [
        await store.getMessage('m1'),
        await store.getMessage('m2'),
        await store.messageVersions('m1'),
        await artifactIds(store),
      ];
      assert.equal(after, before);
      assert.equal(await search(store, 'kept'), ['m1']);
      assert.equal(await search(store, 'text'), []);
    });
  }

  test.run();
}

// Keeps the fixture list honest: every op this file builds is a write op.
const _ops: WriteOp[] = [edit('x', 'y'), del('x')];
void _ops;
