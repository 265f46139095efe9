// Full-text search on the Postgres store gives the answers the memory and sqlite backends give
// (the cases of test/store/search.test.ts): words fold, the last one is a prefix, the scope is
// never left, and pages count only messages in scope.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message, Part, Target } from '../../../src/protocol/types.js';
import { parseQuery } from '../../../src/protocol/search-text.js';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/index.js';
import { tsQuery, type PgSearchQuery } from '../../../src/store/postgres/search.js';
import { StoreError } from '../../../src/store/types.js';
import { freshSchema, type PgSchema } from '../../helpers/pg.js';
import { send } from '../../helpers/store-fixtures.js';

const NET = 'net1';
let clock = 0;
function msg(id: string, target: Target, parts: Part[], from = 'a1', net = NET): Message {
  return {
    id,
    network_id: NET,
    target,
    from: { type: 'agent', id: from, network_id: net, fqid: `svc://${net}/agents/${from}` },
    parts,
    mentions: [],
    created_at: new Date(Date.UTC(2024, 4, 1) + ++clock * 1000).toISOString(),
  };
}
const text = (t: string): Part[] => [{ kind: 'text', text: t }];
const room = (room_id: string): Target => ({ kind: 'room', room_id });
const thread = (room_id: string, thread_id: string): Target => ({ kind: 'thread', room_id, thread_id });
const dm = (dm_id: string): Target => ({ kind: 'dm', dm_id, participant_ids: ['net1:a1', 'net1:b1'] });

const FIXTURE: Message[] = [
  msg('m1', room('pub'), text('The migration plan is ready')),
  msg('m2', room('pub'), text('lunch at noon')),
  msg('m3', thread('pub', 't1'), text('Which migration? the database MIGRATIONS')),
  msg('m4', room('priv'), text('secret migration notes')),
  msg('m5', dm('d1'), text('dm about the migration')),
  msg('m6', room('pub'), [{ kind: 'file', url: 'https://files.test/q3-report.pdf', filename: 'Quarterly-Report.pdf' }]),
  msg('m7', room('pub'), [{ kind: 'data', data: { migration: 'hidden in data' } }]),
  msg('m8', room('pub'), text('Ünïcode café déjà vu'), 'b1'),
  msg('m9', room('pub'), text('remote migration'), 'r1', 'other'),
  msg('m10', room('pub'), [
    { kind: 'url', url: 'https://docs.test/runbook' },
    { kind: 'text', text: 'see link' },
  ]),
];
const ALL = { room_ids: ['pub', 'priv'], dm_ids: ['d1'] };
const query = (q: string, extra: Partial<PgSearchQuery> = {}): PgSearchQuery => ({
  terms: parseQuery(q)!,
  scope: ALL,
  limit: 20,
  ...extra,
});
const ids = async (s: PostgresStore, q: PgSearchQuery) => (await s.searchMessages(q)).items.map((m) => m.id);

const t = suite<{ s: PostgresStore; pgs: PgSchema }>('store search (postgres)');
t.before(async (c) => {
  c.pgs = await freshSchema();
  c.s = await openPostgresStore({ url: c.pgs.url, schema: c.pgs.schema });
  for (const m of FIXTURE) await c.s.write([send(m)]);
});
t.after(async (c) => {
  await c.s.close();
  await c.pgs.drop();
});

t('the tsquery quotes nothing because words hold only letters and digits; the last is a prefix', () => {
  assert.is(tsQuery({ words: ['database', 'migr'], prefix: true }), 'database & migr:*');
});

t('one word finds every message holding it, newest first, in any case', async ({ s }) => {
  assert.equal(await ids(s, query('migration')), ['m9', 'm5', 'm4', 'm3', 'm1']);
  assert.equal(await ids(s, query('MIGRATION plan')), ['m1']);
});

t('the last word matches as a prefix, the others only whole', async ({ s }) => {
  assert.equal(await ids(s, query('migr')), ['m9', 'm5', 'm4', 'm3', 'm1']);
  assert.equal(await ids(s, query('database migr')), ['m3']);
  assert.equal(await ids(s, query('migr database')), []);
});

t('accents and case fold; file names and addresses are found, data parts are not', async ({ s }) => {
  assert.equal(await ids(s, query('unicode cafe')), ['m8']);
  assert.equal(await ids(s, query('DÉJÀ')), ['m8']);
  assert.equal(await ids(s, query('quarterly report')), ['m6']);
  assert.equal(await ids(s, query('q3')), ['m6']);
  assert.equal(await ids(s, query('docs runbook')), ['m10']);
  assert.equal(await ids(s, query('hidden')), []);
});

t('the scope is never left, and the filters narrow it', async ({ s }) => {
  assert.equal(await ids(s, query('migration', { scope: { room_ids: ['pub'], dm_ids: [] } })), ['m9', 'm3', 'm1']);
  assert.equal(await ids(s, query('migration', { scope: { room_ids: [], dm_ids: ['d1'] } })), ['m5']);
  assert.equal(await ids(s, query('migration', { scope: { room_ids: [], dm_ids: [] } })), []);
  assert.equal(await ids(s, query('migration', { thread_id: 't1' })), ['m3']);
  assert.equal(await ids(s, query('migration', { dm_id: 'd1' })), ['m5']);
  assert.equal(await ids(s, query('migration', { from: 'other:r1' })), ['m9']);
  assert.equal(await ids(s, query('migration', { from: 'net1:a1', room_id: 'pub' })), ['m3', 'm1']);
  assert.equal(await ids(s, query('migration', { room_id: 'priv', scope: { room_ids: ['pub'], dm_ids: [] } })), []);
});

t('pages count only messages in scope; a cursor outside the scope is unknown', async ({ s }) => {
  const scope = { room_ids: ['pub'], dm_ids: [] };
  const p1 = await s.searchMessages(query('migration', { scope, limit: 2 }));
  assert.equal(
    p1.items.map((m) => m.id),
    ['m9', 'm3'],
  );
  assert.is(p1.has_more, true);
  const p2 = await s.searchMessages(query('migration', { scope, limit: 2, before: 'm3' }));
  assert.equal(
    p2.items.map((m) => m.id),
    ['m1'],
  );
  assert.is(p2.has_more, false);
  for (const before of ['nope', 'm4']) {
    try {
      await s.searchMessages(query('migration', { scope, before }));
      assert.unreachable(`cursor ${before} accepted`);
    } catch (err) {
      assert.instance(err, StoreError);
      assert.is((err as StoreError).code, 'unknown_cursor');
    }
  }
});

t.run();
