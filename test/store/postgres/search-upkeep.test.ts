// The search index's pending list is merged off the sends (search-upkeep.ts): the index's own limit
// is raised so no insert merges it, the instance that wrote merges it on its own, a search finds
// what is still pending, and a role that does not own the index says so once and stops trying.
// A real PostgreSQL; the list is read with pgstattuple's pgstatginindex.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/index.js';
import { parseQuery } from '../../../src/protocol/search-text.js';
import { freshSchema, guestRole, sql, type PgSchema } from '../../helpers/pg.js';
import { createRoom, msg, send, waitFor } from '../../helpers/store-fixtures.js';
import type { Message } from '../../../src/protocol/types.js';

const test = suite('store (postgres): the search index merged off the sends');
let pgs: PgSchema;
const open: PostgresStore[] = [];

test.before.each(async () => {
  pgs = await freshSchema();
  // Test files share the cluster and may race to create it: whoever loses finds it there.
  await sql(pgs.url, 'CREATE EXTENSION IF NOT EXISTS pgstattuple').catch(async (err) => {
    if ((await sql(pgs.url, "SELECT 1 FROM pg_extension WHERE extname = 'pgstattuple'")).length === 0) throw err;
  });
});
test.after.each(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await pgs.drop();
});

const store = async (extra: { searchMergeMs?: number; url?: string; log?: (m: string) => void } = {}) => {
  const s = await openPostgresStore({ url: pgs.url, schema: pgs.schema, ...extra });
  open.push(s);
  return s;
};
const index = () => `${pgs.schema}.messages_words`;
const pending = async () =>
  Number((await sql(pgs.url, 'SELECT pending_tuples FROM pgstatginindex($1::regclass)', [index()]))[0]!.pending_tuples);
const worded = (i: number): Message => ({ ...msg(`m${i}`), parts: [{ kind: 'text', text: `pelican ${i} word${i}` }] });
const found = async (s: PostgresStore, q: string) =>
  (await s.searchMessages({ terms: parseQuery(q)!, scope: { room_ids: ['r1'], dm_ids: [] }, limit: 100 })).items.map((m) => m.id);

test('the index merges no list of its own below 32 MB; a search finds pending messages; a merge empties the list', async () => {
  const s = await store({ searchMergeMs: 3_600_000 });
  const [opts] = await sql(pgs.url, 'SELECT reloptions FROM pg_class WHERE oid = $1::regclass', [index()]);
  assert.equal(opts!.reloptions, ['gin_pending_list_limit=32768']);
  await s.write([createRoom('r1', { members: ['a1'] })]);
  for (let i = 0; i < 30; i++) await s.write([send(worded(i))]);
  assert.ok((await pending()) >= 30, `pending entries: ${await pending()}`);
  assert.equal(await found(s, 'word7'), ['m7'], 'found while pending');
  assert.is((await found(s, 'pelican')).length, 30);
  await s.searchUpkeep.merge();
  assert.is(await pending(), 0);
  assert.is(s.searchUpkeep.merges, 1);
  assert.equal(await found(s, 'word7'), ['m7'], 'found once merged');
});

test('an instance that wrote messages merges the list by itself; one that wrote none does not', async () => {
  const s = await store({ searchMergeMs: 50 });
  await s.write([createRoom('r1', { members: ['a1'] })]);
  await new Promise((r) => setTimeout(r, 200));
  assert.is(s.searchUpkeep.merges, 0, 'a room alone adds nothing to search');
  for (let i = 0; i < 10; i++) await s.write([send(worded(i))]);
  await waitFor(async () => s.searchUpkeep.merges >= 1 && (await pending()) === 0, 'the list to be merged');
  assert.is((await found(s, 'pelican')).length, 10);
});

test('a role that does not own the index says so once and stops merging; its sends go on', async () => {
  await store(); // migrates, as the owner
  const role = await guestRole(pgs, `${pgs.schema}_reader`, 'all');
  try {
    const logs: string[] = [];
    const s = await store({ url: role.url, searchMergeMs: 3_600_000, log: (m) => logs.push(m) });
    await s.write([createRoom('r1', { members: ['a1'] })]);
    await s.write([send(worded(1))]);
    await s.searchUpkeep.merge();
    await s.searchUpkeep.merge();
    assert.is(s.searchUpkeep.merges, 0);
    const said = logs.filter((l) => l.includes('does not own the index'));
    assert.is(said.length, 1, logs.join('\n'));
    assert.ok((await pending()) > 0, 'nothing merged');
    await s.write([send(worded(2))]);
    assert.equal(await found(s, 'pelican'), ['m2', 'm1']);
    await s.close();
    open.pop();
  } finally {
    await role.drop();
  }
});

test.run();
