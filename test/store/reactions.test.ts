// The reaction.change intent and the reactions part's reads on every backend: added once, removed once, the
// distinct-emoji limit decided against stored state (also under concurrent writers), events only
// for changes, refused for an unknown message, and kept across a reopen where the store is durable.

import { reactionsPart } from '../../src/store/reactions/part.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store, WriteResult } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import { codeOf, createRoom, msg, reactionChange, send } from '../helpers/store-fixtures.js';

const change = (message_id: string, emoji: string, by: string, action: 'add' | 'remove' = 'add', max = 3) =>
  reactionChange(message_id, emoji, by, action, max);

const outcome = (r: WriteResult) => {
  const o = r.outcomes[0]!;
  if (o.op !== 'reaction.change') throw new Error(o.op);
  return { status: o.status, count: o.count, events: r.events.map((e) => e.event.room_id) };
};

for (const backend of BACKENDS) {
  const test = suite(`reactions in the store (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-reactions-', async (s) => {
    store = s;
    await store.write([createRoom('r1'), send(msg('m1')), send(msg('m2'))]);
  });

  test('a reaction is stored once, with an event only when it changes', async () => {
    assert.equal(outcome(await store.write([change('m1', '👍', 'n:a')])), { status: 'added', count: 1, events: ['👍 1'] });
    assert.equal(outcome(await store.write([change('m1', '👍', 'n:a')])), { status: 'unchanged', count: 1, events: [] });
    assert.equal(outcome(await store.write([change('m1', '👍', 'n:b')])), { status: 'added', count: 2, events: ['👍 2'] });
    const got = await store.part(reactionsPart)!.list(['m1', 'm2']);
    assert.equal(
      got.map((r) => [r.message_id, r.emoji, r.by]),
      [
        ['m1', '👍', 'n:a'],
        ['m1', '👍', 'n:b'],
      ],
    );
  });

  test('removing takes one reaction away; removing one that is absent changes nothing', async () => {
    await store.write([change('m1', '👍', 'n:a'), change('m1', '🎉', 'n:a')]);
    assert.equal(outcome(await store.write([change('m1', '👍', 'n:a', 'remove')])), { status: 'removed', count: 0, events: ['👍 0'] });
    assert.equal(outcome(await store.write([change('m1', '👍', 'n:a', 'remove')])), { status: 'unchanged', count: 0, events: [] });
    assert.equal(
      (await store.part(reactionsPart)!.list(['m1'])).map((r) => r.emoji),
      ['🎉'],
    );
  });

  test('a new emoji past the distinct limit is refused; more of one already there is not', async () => {
    for (const e of ['a', 'b', 'c']) await store.write([change('m1', `:${e}:`, 'n:a')]);
    assert.equal(outcome(await store.write([change('m1', ':d:', 'n:a')])), { status: 'limit', count: 0, events: [] });
    assert.is(outcome(await store.write([change('m1', ':a:', 'n:b')])).status, 'added');
    // The limit is per message.
    assert.is(outcome(await store.write([change('m2', ':d:', 'n:a')])).status, 'added');
    assert.is((await store.part(reactionsPart)!.list(['m1'])).length, 4);
  });

  test('concurrent reactions with new emoji never pass the limit', async () => {
    const results = await Promise.all(['p', 'q', 'r', 's', 't'].map((e) => store.write([change('m1', `:${e}:`, `n:${e}`)])));
    const statuses = results.map((r) => outcome(r).status).sort();
    assert.equal(statuses, ['added', 'added', 'added', 'limit', 'limit']);
    assert.is(new Set((await store.part(reactionsPart)!.list(['m1'])).map((r) => r.emoji)).size, 3);
  });

  test('a reaction to a message that is not stored is refused and writes nothing', async () => {
    assert.is(await codeOf(() => store.write([change('nope', '👍', 'n:a')])), 'not_found');
    assert.equal(await store.part(reactionsPart)!.list(['nope']), []);
  });

  if (backend !== 'memory') {
    test('reactions are kept across a reopen', async () => {
      await store.write([change('m1', '👍', 'n:a'), change('m2', '🎉', 'n:b')]);
      await store.write([change('m2', '🎉', 'n:b', 'remove'), change('m2', '👀', 'n:c')]);
      await store.close();
      store = await open();
      assert.equal(
        (await store.part(reactionsPart)!.list(['m1', 'm2'])).map((r) => [r.message_id, r.emoji, r.by]),
        [
          ['m1', '👍', 'n:a'],
          ['m2', '👀', 'n:c'],
        ],
      );
    });
  }

  test.run();
}
