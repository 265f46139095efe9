// Retention's store side (#40 part 4) on every backend: which messages of a conversation have
// expired (by age and by count), and a purge that removes them for good: rows, the events that hold
// them, artifacts, versions, search entries and reactions, with thread and DM counts kept right and
// the feed going on past the holes. A sqlite store replays the purge from its journal.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery } from '../../src/protocol/search-text.js';
import type { Message } from '../../src/protocol/types.js';
import { reactionsPart } from '../../src/store/reactions/part.js';
import type { MessageEditOp, Store } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import { artifact, at, createRoom, event, ids, inDm, inRoom, inThread, msg, reactionChange, send } from '../helpers/store-fixtures.js';

const purge = (...list: string[]) => ({ op: 'message.purge' as const, ids: list });

const edit = (id: string): MessageEditOp => ({
  op: 'message.edit',
  id,
  parts: [{ kind: 'text', text: `edited ${id}` }],
  mentions: [],
  at: at(),
  artifacts: () => [],
  event: (message: Message) => event('message.edited', { message }),
});

const search = async (store: Store, words: string) =>
  ids((await store.searchMessages({ terms: parseQuery(words)!, scope: { room_ids: ['r1'], dm_ids: ['dm1'] }, limit: 50 })).items);

for (const backend of BACKENDS) {
  const test = suite(`retention's expiry and purge (${backend})`);
  let store: Store;
  let times: Record<string, string>;
  const open = storePerTest(test, backend, 'svc-purge-contract-', async (s) => {
    store = s;
    times = {};
    await store.write([createRoom('r1', { members: ['a1'] })]);
    for (const id of ['m1', 'm2', 'm3', 'm4']) {
      const m = msg(id);
      times[id] = m.created_at;
      await store.write([send(m, id === 'm1' ? [artifact('m1-a', inRoom(), 'm1')] : [])]);
    }
  });

  test('expired messages: by age, by count, both, oldest first, at most the limit', async () => {
    assert.equal(await store.expiredMessages({ conv: 'room:r1', before: times.m3!, limit: 10 }), ['m1', 'm2']);
    assert.equal(await store.expiredMessages({ conv: 'room:r1', keep: 1, limit: 10 }), ['m1', 'm2', 'm3']);
    assert.equal(await store.expiredMessages({ conv: 'room:r1', keep: 3, before: times.m3!, limit: 10 }), ['m1', 'm2']);
    assert.equal(await store.expiredMessages({ conv: 'room:r1', keep: 1, limit: 2 }), ['m1', 'm2']);
    assert.equal(await store.expiredMessages({ conv: 'room:r1', keep: 10, limit: 10 }), []);
    assert.equal(await store.expiredMessages({ conv: 'room:nope', keep: 0, limit: 10 }), []);
  });

  test('a purge removes the messages, their events, artifacts, versions, search entries and reactions', async () => {
    await store.write([edit('m1'), reactionChange('m1', '👍', 'net1:a1', 'add', 20)]);
    const before = await store.eventsAfter(0, 100);
    const r = await store.write([purge('m1', 'm2', 'nope')]);
    assert.equal(r.outcomes, [{ op: 'message.purge', purged: ['m1', 'm2'] }]);
    assert.is(r.events.length, 0);
    assert.is(await store.getMessage('m1'), undefined);
    assert.equal(ids((await store.listMessages('room:r1', { limit: 10 })).items), ['m3', 'm4']);
    assert.equal(ids((await store.listArtifacts({ room_id: 'r1' }, { limit: 10 })).items), []);
    assert.equal(await store.messageVersions('m1'), []);
    assert.equal(await store.part(reactionsPart)!.list(['m1']), []);
    assert.equal(await search(store, 'm1'), []);
    assert.equal(await search(store, 'm3'), ['m3']);
    const after = await store.eventsAfter(0, 100);
    const held = (e: { event: { message?: { id: string } } }) => e.event.message?.id;
    assert.equal(
      after.map(held).filter((x) => x !== undefined),
      ['m3', 'm4'],
    );
    // Events that hold no purged message stay, with their seqs.
    assert.equal(
      after.map((e) => e.seq),
      before.filter((e) => held(e) !== 'm1' && held(e) !== 'm2').map((e) => e.seq),
    );
    // A page of the feed goes on past the holes.
    const page = await store.eventsAfter(0, 2);
    assert.is(page.length, 2);
  });

  test('a purged thread or DM message leaves the count right; a tombstone was already uncounted', async () => {
    await store.write([
      send(msg('t1', inThread('th'))),
      send(msg('t2', inThread('th'))),
      send(msg('d1', inDm('dm1'))),
      send(msg('d2', inDm('dm1'))),
    ]);
    await store.write([{ op: 'message.delete', id: 't1', at: at(), event: (message: Message) => event('message.deleted', { message }) }]);
    assert.is((await store.getThread('th'))!.message_count, 1);
    await store.write([purge('t1', 'd1')]);
    assert.is((await store.getThread('th'))!.message_count, 1);
    assert.is((await store.getDm('dm1'))!.message_count, 1);
    assert.equal(ids((await store.listMessages('thread:th', { limit: 10 })).items), ['t2']);
  });

  if (backend !== 'memory') {
    test('a purge reads the same after a reopen (sqlite replays its journal)', async () => {
      await store.write([purge('m1', 'm3')]);
      const before = [await store.eventsAfter(0, 100), ids((await store.listMessages('room:r1', { limit: 10 })).items)];
      await store.close();
      store = await open();
      const after = [await store.eventsAfter(0, 100), ids((await store.listMessages('room:r1', { limit: 10 })).items)];
      assert.equal(after, before);
      assert.equal(after[1], ['m2', 'm4']);
    });
  }

  test.run();
}
