// Edits and deletes on Postgres (#40 parts 1 and 2) where the batch's one statement cannot see its
// own rows: effects on one message within a batch are reduced (two edits keep only the last
// edit's artifacts; an insert and its edit store the edited body and its words; an edit and a
// delete leave no version or artifact; a reaction and a delete leave no reaction), and events of a
// message the batch stored are kept by reference only when they show its final body.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery } from '../../../src/protocol/search-text.js';
import type { Artifact, Message, Part } from '../../../src/protocol/types.js';
import { copyToPostgres } from '../../../src/store/postgres/copy.js';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/index.js';
import { reactionsPart } from '../../../src/store/reactions/part.js';
import type { MessageDeleteOp, MessageEditOp } from '../../../src/store/types.js';
import { freshSchema, sql, type PgSchema } from '../../helpers/pg.js';
import { artifact, at, createRoom, event, ids, inRoom, msg, reactionChange, send } from '../../helpers/store-fixtures.js';

const test = suite('store (postgres): edits and deletes within one batch');
let pgs: PgSchema;
let s: PostgresStore;

const text = (t: string): Part[] => [{ kind: 'text', text: t }];

function edit(id: string, words: string): MessageEditOp {
  return {
    op: 'message.edit',
    id,
    parts: [...text(words), { kind: 'url', url: `https://example.com/${id}` }],
    mentions: [],
    at: at(),
    artifacts: (m: Message): Artifact[] => [{ ...artifact(`${m.id}-v${m.version}`, m.target, m.id), part_index: 1, kind: 'url' }],
    event: (message, mentions_added) => event('message.edited', { message, mentions_added }),
  };
}

const del = (id: string): MessageDeleteOp => ({
  op: 'message.delete',
  id,
  at: at(),
  event: (message) => event('message.deleted', { message }),
});

const search = async (words: string) =>
  ids((await s.searchMessages({ terms: parseQuery(words)!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 50 })).items);

const rowsOf = (table: string, cols: string, order: string) =>
  sql<Record<string, unknown>>(pgs.url, `SELECT ${cols} FROM ${pgs.schema}.${table} ORDER BY ${order}`);

test.before.each(async () => {
  pgs = await freshSchema();
  s = await openPostgresStore({ url: pgs.url, schema: pgs.schema });
  await s.write([createRoom('r1'), send(msg('m1'), [artifact('m1-a', inRoom(), 'm1')])]);
});
test.after.each(async () => {
  await s.close();
  await pgs.drop();
});

test("two edits in one batch keep only the last edit's artifacts, and both versions", async () => {
  const r = await s.write([edit('m1', 'first'), edit('m1', 'second')]);
  assert.equal(ids((await s.listArtifacts({ room_id: 'r1' }, { limit: 10 })).items), ['m1-v3']);
  assert.equal(
    (await s.messageVersions('m1')).map((v) => [v.version, v.parts[0]!.text]),
    [
      [1, 'text of m1'],
      [2, 'first'],
    ],
  );
  assert.equal(await search('second'), ['m1']);
  assert.equal(await search('first'), []);
  // The first edit's event shows version 2, the message's final body is version 3: only the
  // second is kept by reference, and both read back as they were appended.
  const rows = await rowsOf('events', 'type, message_id', 'seq');
  assert.equal(rows.slice(-2), [
    { type: 'message.edited', message_id: null },
    { type: 'message.edited', message_id: 'm1' },
  ]);
  const back = (await s.eventsAfter(0, 100)).slice(-2);
  assert.equal(
    back.map((e) => e.event),
    r.events.map((e) => e.event),
  );
});

test('a message sent and edited in one batch is stored edited, with its words', async () => {
  const r = await s.write([send(msg('m2'), [artifact('m2-a', inRoom(), 'm2')]), edit('m2', 'zebra')]);
  const m = (await s.getMessage('m2'))!.message;
  assert.equal([m.version, m.parts[0]!.text], [2, 'zebra']);
  assert.equal(await search('zebra'), ['m2']);
  assert.equal(await search('text m2'), []);
  assert.equal(
    (await s.messageVersions('m2')).map((v) => v.parts[0]!.text),
    ['text of m2'],
  );
  assert.equal(ids((await s.listArtifacts({ room_id: 'r1' }, { limit: 10 })).items), ['m1-a', 'm2-v2']);
  // message.created showed version 1: it reads back as appended, not as the edited row.
  const back = (await s.eventsAfter(0, 100)).slice(-2);
  assert.equal(
    back.map((e) => e.event),
    r.events.map((e) => e.event),
  );
});

test('an edit and a delete in one batch leave no version and no artifact; the tombstone has no words', async () => {
  await s.write([edit('m1', 'gone soon'), del('m1')]);
  assert.equal(await s.messageVersions('m1'), []);
  assert.equal(await rowsOf('message_versions', 'message_id', 'message_id'), []);
  assert.equal(await rowsOf('artifacts', 'id', 'seq'), []);
  assert.equal(await rowsOf('messages', 'id, words', 'seq'), [{ id: 'm1', words: '' }]);
  // The delete's event is kept by reference to the tombstone.
  const rows = await rowsOf('events', 'type, message_id', 'seq');
  assert.equal(rows.at(-1), { type: 'message.deleted', message_id: 'm1' });
});

test('a reaction added and its message deleted in one batch leave no reaction', async () => {
  await s.write([reactionChange('m1', '👍', 'net1:a1', 'add', 20), del('m1')]);
  assert.equal(await s.part(reactionsPart)!.list(['m1']), []);
  assert.equal(await rowsOf('reactions', 'message_id', 'seq'), []);
});

test('deletes of messages in a thread and in the room of one batch lock and count each once', async () => {
  await s.write([
    send(msg('t-root', { kind: 'thread', room_id: 'r1', thread_id: 't1' })),
    send(msg('t-2', { kind: 'thread', room_id: 'r1', thread_id: 't1' })),
  ]);
  await s.write([del('t-root'), del('t-2'), del('m1')]);
  assert.is((await s.getThread('t1'))!.message_count, 0);
  assert.equal(ids((await s.listMessages('thread:t1', { limit: 10 })).items), ['t-root', 't-2']);
});

test('concurrent edits of one message are serialized by its row lock: each keeps the version it replaced', async () => {
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => s.write([edit('m1', `edit ${i}`)])));
  const made = results
    .map((r) => (r.outcomes[0]!.op === 'message.edit' ? (r.outcomes[0]!.record.message.version ?? 0) : 0))
    .sort((x, y) => x - y);
  assert.equal(
    made,
    Array.from({ length: 12 }, (_, i) => i + 2),
  );
  assert.equal(
    (await s.messageVersions('m1')).map((v) => v.version),
    Array.from({ length: 12 }, (_, i) => i + 1),
  );
  assert.is((await s.getMessage('m1'))!.message.version, 13);
});

test('reactions racing a delete of their message leave none behind', async () => {
  const settledAll = await Promise.allSettled([
    ...Array.from({ length: 6 }, (_, i) => s.write([reactionChange('m1', '👍', `net1:b${i}`, 'add', 20)])),
    s.write([del('m1')]),
    ...Array.from({ length: 6 }, (_, i) => s.write([reactionChange('m1', '🎉', `net1:c${i}`, 'add', 20)])),
  ]);
  // Each reaction either came before the delete (and went with it) or was refused after it.
  for (const r of settledAll) if (r.status === 'rejected') assert.is((r.reason as { code?: string }).code, 'not_found');
  assert.equal(await rowsOf('reactions', 'message_id', 'seq'), []);
});

test('svc store copy carries the versions of edited messages and the tombstones of deleted ones', async () => {
  await s.write([send(msg('m2')), send(msg('m3'))]);
  await s.write([edit('m1', 'one')]);
  await s.write([edit('m1', 'two'), del('m2')]);
  const target = await freshSchema();
  try {
    await copyToPostgres(s, { url: target.url, schema: target.schema, pairingIds: [] });
    const t = await openPostgresStore({ url: target.url, schema: target.schema });
    try {
      for (const id of ['m1', 'm2', 'm3']) {
        assert.equal(await t.getMessage(id), await s.getMessage(id), id);
        assert.equal(await t.messageVersions(id), await s.messageVersions(id), id);
      }
      assert.is((await t.messageVersions('m1')).length, 2);
      assert.equal(ids((await t.searchMessages({ terms: parseQuery('two')!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 9 })).items), [
        'm1',
      ]);
      assert.equal(
        ids((await t.searchMessages({ terms: parseQuery('m2')!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 9 })).items),
        [],
      );
    } finally {
      await t.close();
    }
  } finally {
    await target.drop();
  }
});

test.run();
