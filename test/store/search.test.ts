// The search contract of the store, run against every backend: the same writes give the same
// answers, the scope is never left, paging counts only messages in scope, and the sqlite index
// is rebuilt by replay and by the migration that indexes messages stored before it existed.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import { send } from '../helpers/store-fixtures.js';
import * as assert from 'uvu/assert';
import type { Message, Part, Target } from '../../src/protocol/types.js';
import { parseQuery } from '../../src/protocol/search-text.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { StoreError, type SearchQuery, type Store, type WriteOp } from '../../src/store/types.js';

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
// The send intent: the message with its event, its thread or DM created or counted.
const insert = (m: Message): WriteOp => send(m);

/** The messages every backend is given, oldest first. */
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

function query(q: string, extra: Partial<SearchQuery> = {}): SearchQuery {
  return { terms: parseQuery(q)!, scope: ALL, limit: 20, ...extra };
}
const ids = async (s: Store, q: SearchQuery) => (await s.searchMessages(q)).items.map((m) => m.id);

interface Backend {
  name: string;
  open(): Promise<Store>;
  /** Closes the store and opens the same data again (memory: not possible). */
  reopen?: (s: Store) => Promise<Store>;
  cleanup(): void;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-search-'));
  const file = join(dir, 'svc.db');
  return {
    name: 'sqlite',
    open: () => openSqliteStore({ path: file }),
    reopen: async (s) => {
      await s.close();
      return openSqliteStore({ path: file });
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const memoryBackend = (): Backend => ({ name: 'memory', open: async () => new MemoryStore(), cleanup: () => {} });

/** Postgres: a fresh schema on the test server (test/helpers/pg.ts); reopen opens it again. */
function postgresBackend(): Backend {
  let pgs: PgSchema | undefined;
  const open = async () => {
    pgs ??= await freshSchema();
    return openPostgresStore({ url: pgs.url, schema: pgs.schema });
  };
  return {
    name: 'postgres',
    open,
    reopen: async (s) => {
      await s.close();
      return open();
    },
    cleanup: () => void pgs?.drop(),
  };
}

for (const make of [memoryBackend, sqliteBackend, postgresBackend]) {
  const b = make();
  const t = suite<{ s: Store }>(`store search (${b.name})`);
  t.before(async (c) => {
    c.s = await b.open();
    for (const m of FIXTURE) await c.s.write([insert(m)]);
  });
  t.after(async (c) => {
    await c.s.close();
    b.cleanup();
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

  t('several words must all match, in any order and any part', async ({ s }) => {
    assert.equal(await ids(s, query('plan migration')), ['m1']);
    assert.equal(await ids(s, query('migration lunch')), []);
    assert.equal(await ids(s, query('runbook link')), ['m10']);
  });

  t('accents and case fold on both sides', async ({ s }) => {
    assert.equal(await ids(s, query('unicode cafe')), ['m8']);
    assert.equal(await ids(s, query('DÉJÀ')), ['m8']);
  });

  t('file names and addresses of url and file parts are found, data parts are not', async ({ s }) => {
    assert.equal(await ids(s, query('quarterly report')), ['m6']);
    assert.equal(await ids(s, query('q3')), ['m6']);
    assert.equal(await ids(s, query('docs runbook')), ['m10']);
    assert.equal(await ids(s, query('hidden')), []);
  });

  t('a word nobody wrote finds nothing', async ({ s }) => {
    const r = await s.searchMessages(query('zeppelin'));
    assert.equal(r.items, []);
    assert.is(r.has_more, false);
  });

  t('the scope is never left: rooms and DMs outside it are not searched', async ({ s }) => {
    assert.equal(await ids(s, query('migration', { scope: { room_ids: ['pub'], dm_ids: [] } })), ['m9', 'm3', 'm1']);
    assert.equal(await ids(s, query('migration', { scope: { room_ids: [], dm_ids: ['d1'] } })), ['m5']);
    assert.equal(await ids(s, query('migration', { scope: { room_ids: [], dm_ids: [] } })), []);
  });

  t('filters: room (with its threads), thread, DM and sender', async ({ s }) => {
    assert.equal(await ids(s, query('migration', { room_id: 'pub' })), ['m9', 'm3', 'm1']);
    assert.equal(await ids(s, query('migration', { thread_id: 't1' })), ['m3']);
    assert.equal(await ids(s, query('migration', { dm_id: 'd1' })), ['m5']);
    assert.equal(await ids(s, query('migration', { from: 'other:r1' })), ['m9']);
    assert.equal(await ids(s, query('migration', { from: 'net1:a1', room_id: 'pub' })), ['m3', 'm1']);
    assert.equal(await ids(s, query('migration', { room_id: 'priv', scope: { room_ids: ['pub'], dm_ids: [] } })), []);
  });

  t('pages count only messages in scope and go back with before', async ({ s }) => {
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
  });

  t('a cursor outside the scope or unknown is an unknown cursor', async ({ s }) => {
    for (const before of ['nope', 'm4']) {
      try {
        await s.searchMessages(query('migration', { scope: { room_ids: ['pub'], dm_ids: [] }, before }));
        assert.unreachable(`cursor ${before} accepted`);
      } catch (err) {
        assert.instance(err, StoreError);
        assert.is((err as StoreError).code, 'unknown_cursor');
      }
    }
  });

  t('hits are the stored messages, whole', async ({ s }) => {
    const [hit] = (await s.searchMessages(query('quarterly'))).items;
    assert.equal(hit, FIXTURE[5]);
  });

  if (b.reopen) {
    t('the index survives a reopen and keeps indexing new messages', async (c) => {
      c.s = await b.reopen!(c.s);
      assert.equal(await ids(c.s, query('migration')), ['m9', 'm5', 'm4', 'm3', 'm1']);
      await c.s.write([insert(msg('m11', room('pub'), text('late migration')))]);
      assert.equal(await ids(c.s, query('late')), ['m11']);
      c.s = await b.reopen!(c.s);
      assert.equal(await ids(c.s, query('late migration')), ['m11']);
    });
  }
  t.run();
}

const mig = suite<{ dir: string }>('search index migration (sqlite)');
mig.before((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'svc-search-mig-'));
});
mig.after((c) => rmSync(c.dir, { recursive: true, force: true }));

mig(
  'a database of schema 15 (its index in svc.db) drops that index and gets every stored message found from the search file',
  async ({ dir }) => {
    const file = join(dir, 'svc.db');
    const s = await openSqliteStore({ path: file });
    for (const m of FIXTURE) await s.write([insert(m)]);
    await s.close();
    // Turn the file back into schema version 15: the index inside it (with a word no message
    // holds, which must go with it), no search file beside it.
    const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
    const db = new SQL.Database(readFileSync(file));
    db.run('CREATE VIRTUAL TABLE search_index USING fts4(content="", words, order=DESC, matchinfo=fts3)');
    db.run('CREATE TABLE search_scope (seq INTEGER PRIMARY KEY, room_id TEXT, thread_id TEXT, dm_id TEXT, sender TEXT NOT NULL)');
    db.run("INSERT INTO search_index (docid, words) VALUES (1, 'Oldindexonlyword')");
    db.run("DELETE FROM meta WHERE key = 'search_epoch'");
    db.run("UPDATE meta SET value = '15' WHERE key = 'schema_version'");
    writeFileSync(file, db.export());
    db.close();
    rmSync(`${file}.search`, { force: true });

    const again = await openSqliteStore({ path: file });
    try {
      assert.equal(await ids(again, query('migration')), ['m9', 'm5', 'm4', 'm3', 'm1']);
      assert.equal(await ids(again, query('quarterly')), ['m6']);
    } finally {
      await again.close();
    }
    const after = new SQL.Database(readFileSync(file));
    assert.equal(after.exec("SELECT name FROM sqlite_master WHERE name LIKE 'search%'"), []);
    after.close();
    assert.not.ok(readFileSync(file).includes('oldindexonlyword'), 'the old index is gone from svc.db');
  },
);

mig.run();
