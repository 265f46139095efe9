// Edits and deletes of messages in the sqlite backend's files (#40 parts 1 and 2): what a crash
// replays from the journal and what worker checkpoints apply, search over a contentless index
// (old words found no more, a deleted message never, pages still full), the migration that gives
// existing artifacts their message ids, and `svc store copy` carrying earlier versions.
// (test/store/message-lifecycle.contract.test.ts holds what every backend shares.)

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery } from '../../../src/protocol/search-text.js';
import type { Artifact, Message } from '../../../src/protocol/types.js';
import { reactionsPart } from '../../../src/store/reactions/part.js';
import { SCHEMA_VERSION } from '../../../src/store/sqlite/schema.js';
import { copyToSqlite } from '../../../src/store/sqlite/copy.js';
import { listJournals } from '../../../src/store/sqlite/engine/journal.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import type { MessageDeleteOp, MessageEditOp, SearchQuery, Store } from '../../../src/store/types.js';
import {
  leftAsCrashed,
  artifact,
  at,
  createRoom,
  event,
  ids,
  inRoom,
  msg,
  reactionChange,
  send,
  waitFor,
} from '../../helpers/store-fixtures.js';

const test = suite('sqlite message edits and deletes');
let dir = '';
let dbPath = '';
let opened: SqliteStore[] = [];

async function open(opts: Partial<Parameters<typeof openSqliteStore>[0]> = {}): Promise<SqliteStore> {
  const s = await openSqliteStore({ path: dbPath, ...opts });
  opened.push(s);
  return s;
}

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-edits-'));
  dbPath = join(dir, 'svc.db');
  opened = [];
});
test.after.each(async () => {
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const edit = (id: string, words: string): MessageEditOp => ({
  op: 'message.edit',
  id,
  parts: [
    { kind: 'text', text: words },
    { kind: 'url', url: `https://example.test/${id}` },
  ],
  mentions: [],
  at: at(),
  artifacts: (m: Message): Artifact[] => [{ ...artifact(`${m.id}-v${m.version}`, m.target, m.id), part_index: 1 }],
  event: (message, mentions_added) => event('message.edited', { message, mentions_added }),
});

const del = (id: string): MessageDeleteOp => ({
  op: 'message.delete',
  id,
  at: at(),
  event: (message) => event('message.deleted', { message }),
});

const withText = (id: string, text: string): Message => ({ ...msg(id), parts: [{ kind: 'text', text }] });

async function search(s: Store, words: string, more: Partial<SearchQuery> = {}) {
  const r = await s.searchMessages({ terms: parseQuery(words)!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 50, ...more });
  return { ids: ids(r.items), more: r.has_more };
}

/** Everything a client reads of the messages below, for comparing two stores. */
async function snapshot(s: Store) {
  return {
    m1: await s.getMessage('m1'),
    m2: await s.getMessage('m2'),
    m3: await s.getMessage('m3'),
    versions: [await s.messageVersions('m1'), await s.messageVersions('m2')],
    artifacts: ids((await s.listArtifacts({ room_id: 'r1' }, { limit: 100 })).items),
    reactions: await s.part(reactionsPart)!.list(['m1', 'm2', 'm3']),
    events: await s.eventsAfter(0, 1000),
    found: [await search(s, 'orange'), await search(s, 'apple'), await search(s, 'kiwi'), await search(s, 'plum')],
  };
}

/** Sends three messages, edits one twice and another once, deletes that one; returns a snapshot. */
async function lifecycle(s: Store): Promise<Awaited<ReturnType<typeof snapshot>>> {
  await s.write([createRoom('r1')]);
  await s.write([send(withText('m1', 'apple one'), [artifact('a1', inRoom(), 'm1')])]);
  await s.write([send(withText('m2', 'apple two'), [artifact('a2', inRoom(), 'm2')])]);
  await s.write([send(withText('m3', 'apple three'))]);
  await s.write([edit('m1', 'orange one')]);
  await s.write([edit('m1', 'kiwi one'), reactionChange('m1', '👍', 'net1:a1', 'add', 20)]);
  await s.write([edit('m2', 'plum two'), reactionChange('m2', '👍', 'net1:a1', 'add', 20)]);
  await s.write([del('m2')]);
  return snapshot(s);
}

/** What `lifecycle` leaves for a reader. */
function assertLifecycle(got: Awaited<ReturnType<typeof snapshot>>): void {
  assert.is(got.m1!.message.parts[0]!.text, 'kiwi one');
  assert.is(got.m1!.message.version, 3);
  assert.equal([got.m2!.message.parts, typeof got.m2!.message.deleted_at], [[], 'string']);
  assert.equal(
    got.versions.map((vs) => vs.map((v) => v.parts[0]!.text)),
    [['apple one', 'orange one'], []],
  );
  assert.equal(got.artifacts, ['m1-v3']);
  assert.equal(
    got.reactions.map((r) => r.message_id),
    ['m1'],
  );
  assert.equal(
    got.found.map((f) => f.ids),
    [[], ['m3'], ['m1'], []],
  );
}

test('edits and deletes survive a crash: a second store replays them from the journal', async () => {
  const a = await open();
  const before = await lifecycle(a);
  assertLifecycle(before);
  // A second store on the same files while the first never closed: a restart after a crash.
  await leftAsCrashed(a);
  const b = await open();
  assert.equal(await snapshot(b), before);
});

test('edits and deletes applied by checkpoints in the worker thread read the same after a crash', async () => {
  const a = await open({ checkpointBytes: 2048, workerCheckpointBytes: 0, pageTracking: false });
  await lifecycle(a);
  // More batches after the edits, so that checkpoints run over them.
  for (let i = 0; i < 30; i++) await a.write([send(withText(`f${i}`, `filler ${i}`))]);
  const before = await snapshot(a);
  assertLifecycle(before);
  await waitFor(async () => (await a.stats()).checkpoints! >= 2, 'two worker checkpoints', 60_000);
  let seen = -1;
  await waitFor(
    async () => {
      const now = (await a.stats()).checkpoints!;
      const still = now === seen && listJournals(dbPath).length === 1;
      seen = now;
      return still;
    },
    'checkpoints to settle',
    60_000,
  );
  const b = await open();
  assert.equal(await snapshot(b), before);
});

test('a message edited or deleted before the search worker indexed it is found by its new words only, and a deleted one never', async () => {
  const s = await open();
  await s.write([createRoom('r1')]);
  // In one batch and in the next write: either way the worker may get the words the message was sent with.
  await s.write([send(withText('m1', 'walnut first')), edit('m1', 'hazel first')]);
  await s.write([send(withText('m2', 'walnut second'))]);
  await s.write([edit('m2', 'hazel second')]);
  await s.write([send(withText('m3', 'walnut third')), send(withText('m4', 'walnut fourth'))]);
  await s.write([del('m3')]);
  assert.equal(await search(s, 'walnut'), { ids: ['m4'], more: false });
  assert.equal(await search(s, 'hazel'), { ids: ['m2', 'm1'], more: false });
  assert.equal(await search(s, 'third'), { ids: [], more: false });
});

test('a page of results stays full when edited messages in it no longer match', async () => {
  const s = await open();
  await s.write([createRoom('r1')]);
  for (let i = 1; i <= 8; i++) await s.write([send(withText(`m${i}`, `cherry number${i}`))]);
  await search(s, 'cherry');
  for (let i = 3; i <= 8; i++) await s.write([edit(`m${i}`, `lemon number${i}`)]);
  assert.equal(await search(s, 'cherry', { limit: 1 }), { ids: ['m2'], more: true });
  assert.equal(await search(s, 'cherry', { limit: 1, before: 'm2' }), { ids: ['m1'], more: false });
  assert.equal(await search(s, 'cherry', { limit: 2 }), { ids: ['m2', 'm1'], more: false });
  assert.equal(await search(s, 'lemon', { limit: 4 }), { ids: ['m8', 'm7', 'm6', 'm5'], more: true });
  // A word of both versions finds each message once.
  assert.equal((await search(s, 'number')).ids, ['m8', 'm7', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1']);
});

test('an edit of very many distinct words is indexed whole by the search worker, off the write', async () => {
  const s = await open();
  await s.write([createRoom('r1'), send(withText('m1', 'short'))]);
  // More than the 8,192 an edit's own write used to index in the main thread's turn.
  const text = Array.from({ length: 9000 }, (_, i) => `wd${i}x`).join(' ');
  await s.write([edit('m1', text)]);
  assert.equal((await search(s, 'wd3x')).ids, ['m1']);
  assert.equal((await search(s, 'wd8999x')).ids, ['m1']);
  assert.equal((await search(s, 'short')).ids, []);
  assert.is((await s.getMessage('m1'))!.message.parts[0]!.text, text);
});

test('a store migrated from schema 13 keeps versions, and an edit replaces the artifacts stored before', async () => {
  const a = await open();
  await a.write([createRoom('r1'), send(withText('m1', 'old store'), [artifact('a1', inRoom(), 'm1')])]);
  await a.close();
  // The database as schema 13 left it: no versions table, no index of artifacts by message.
  const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
  const db = new SQL.Database(readFileSync(dbPath));
  db.exec("DROP INDEX artifacts_by_message; DROP TABLE message_versions; UPDATE meta SET value = '13' WHERE key = 'schema_version'");
  writeFileSync(dbPath, db.export());
  db.close();
  const b = await open();
  assert.equal(b.schemaChange && [b.schemaChange.from, b.schemaChange.to], [13, SCHEMA_VERSION]);
  await b.write([edit('m1', 'new words')]);
  assert.equal(ids((await b.listArtifacts({ room_id: 'r1' }, { limit: 10 })).items), ['m1-v2']);
  assert.equal(
    (await b.messageVersions('m1')).map((v) => v.parts[0]!.text),
    ['old store'],
  );
});

test('edit and delete events keep their message by reference, and read as the message is now', async () => {
  const a = await open();
  await a.write([createRoom('r1'), send(withText('m1', 'first')), send(withText('m2', 'second'))]);
  await a.write([edit('m1', 'changed')]);
  await a.write([del('m2')]);
  const events = (await a.eventsAfter(0, 100)).filter((e) => e.event.message);
  assert.equal(
    events.map((e) => [e.event.type, e.event.message!.id, e.event.message!.parts[0]?.text ?? null]),
    [
      ['message.created', 'm1', 'changed'],
      ['message.created', 'm2', null],
      ['message.edited', 'm1', 'changed'],
      ['message.deleted', 'm2', null],
    ],
  );
  await a.close();
  const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
  const db = new SQL.Database(readFileSync(dbPath));
  const rows = db.exec('SELECT message_id, body FROM events WHERE message_id IS NOT NULL ORDER BY seq')[0]!.values;
  db.close();
  assert.equal(
    rows.map((r) => [r[0], JSON.parse(r[1] as string).type, JSON.parse(r[1] as string).message]),
    [
      ['m1', 'message.created', null],
      ['m2', 'message.created', null],
      ['m1', 'message.edited', null],
      ['m2', 'message.deleted', null],
    ],
  );
});

test('a copied store keeps edited messages with their versions, and tombstones', async () => {
  const a = await open();
  const before = await lifecycle(a);
  const file = join(dir, 'copy', 'svc.db');
  await copyToSqlite(a, { file, pairingIds: [] });
  const b = await openSqliteStore({ path: file });
  opened.push(b);
  const after = await snapshot(b);
  // Copied events hold their message as it is now, as the source shows them.
  assert.equal({ ...after, events: after.events.length }, { ...before, events: before.events.length });
});

test.run();
