// The receipts part's gap read in sqlite (store/receipts/sqlite.ts GAP_HOLDS_MESSAGE): whether a
// conversation has a message between two event seqs. It must walk the gap's events (bridge bounds
// the gap), never the conversation's messages: that plan made each receipt write cost more as
// conversations grew, until a 30-minute soak fell behind. The plan is read from SQLite itself, on
// a store with a long conversation and with the statistics an ANALYZE would give it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GAP_HOLDS_MESSAGE } from '../../../src/store/receipts/sqlite.js';
import type { Db } from '../../../src/store/sqlite/db.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import { createRoom, inRoom, msg, send } from '../../helpers/store-fixtures.js';

const test = suite('sqlite receipts: the gap read');
let dir = '';
let store: SqliteStore;
const dbOf = (s: SqliteStore) => (s as unknown as { db: Db }).db;
const plan = (db: Db) =>
  db
    .all(`EXPLAIN QUERY PLAN ${GAP_HOLDS_MESSAGE}`, [1, 2, 'room:long'])
    .map((r) => String(r[3]))
    .join(' | ');

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-receipt-gaps-'));
  store = await openSqliteStore({ path: join(dir, 'svc.db') });
  await store.write([createRoom('long', { members: ['a'] }), createRoom('other', { members: ['a'] })]);
  // One long conversation and, between two of its messages, another conversation's.
  const ops = [];
  for (let i = 0; i < 300; i++) ops.push(send(msg(`m${i}`, inRoom('long'))));
  ops.push(send(msg('x1', inRoom('other'))), send(msg('x2', inRoom('other'))));
  ops.push(send(msg('m-last', inRoom('long'))));
  await store.write(ops);
});

test.after.each(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("walks the gap's events by seq, then each one's message by id", () => {
  assert.match(
    plan(dbOf(store)),
    /^SEARCH e USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\) \| SEARCH m USING INDEX sqlite_autoindex_messages_1 \(id=\?\)$/,
  );
});

test('keeps that plan with the statistics an ANALYZE gives', () => {
  const db = dbOf(store);
  db.run('ANALYZE');
  try {
    assert.match(plan(db), /^SEARCH e USING INTEGER PRIMARY KEY/);
  } finally {
    db.run('DROP TABLE IF EXISTS sqlite_stat1');
  }
});

test('answers whether the gap holds a message of the conversation', () => {
  const db = dbOf(store);
  const seqOf = (id: string) => Number(db.all('SELECT seq FROM events WHERE message_id = ? ORDER BY seq LIMIT 1', [id])[0]![0]);
  const holds = (after: number, before: number, conv: string) => db.all(GAP_HOLDS_MESSAGE, [after, before, conv]).length > 0;
  const [last, lastButOne, x1] = [seqOf('m-last'), seqOf('m299'), seqOf('x1')];
  assert.ok(lastButOne < x1 && x1 < last, `seqs ${lastButOne} < ${x1} < ${last}`);
  assert.is(holds(lastButOne, last, 'room:long'), false, 'only the other room wrote between them');
  assert.is(holds(lastButOne, last, 'room:other'), true);
  assert.is(holds(seqOf('m0'), last, 'room:long'), true);
});

test.run();
