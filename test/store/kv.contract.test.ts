// The expiring key/value table (src/store/kv/: #27 part 2, OAuth state, the network uid, pairings'
// learned ids) on every backend, through the store as the server uses it (`store.kv`): rows by kind
// and id, by a lookup key and by grant, expiry on read and by sweep, an atomic consume,
// insert-if-absent; on sqlite and Postgres kept across a reopen (and, on sqlite, replayed from the
// journal after a crash, through sqlite/apply.ts and the table's own effects); carried by
// `svc store copy` between sqlite and Postgres.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/open.js';
import type { KvPut, Store } from '../../src/store/types.js';
import { freshSchema } from '../helpers/pg.js';
import { leftAsCrashed } from '../helpers/store-fixtures.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import { copyToPostgres } from '../../src/store/postgres/copy.js';
import { copyToSqlite } from '../../src/store/sqlite/copy.js';

const row = (kind: string, id: string, extra: Partial<KvPut> = {}): KvPut => ({ kind, id, value: JSON.stringify({ kind, id }), ...extra });
const ids = (l: { id: string }[]) => l.map((e) => e.id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of BACKENDS) {
  const test = suite(`expiring key/value table (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-kv-', (s) => {
    store = s;
  });

  test('a row put is read back by kind and id exactly, and replaced whole by another put', async () => {
    assert.is(await store.kv.get('Client', 'c1'), undefined);
    await store.kv.put(row('Client', 'c1', { value: '{"a":1,"b":"é"}', lookup: 'u1', grant_id: 'g1', expires_at: Date.now() + 60_000 }));
    const got = await store.kv.get('Client', 'c1');
    assert.is(got?.value, '{"a":1,"b":"é"}');
    assert.is(got?.lookup, 'u1');
    assert.is(got?.grant_id, 'g1');
    assert.type(got?.expires_at, 'number');
    assert.is(await store.kv.get('Grant', 'c1'), undefined, 'kinds are separate');
    await store.kv.put(row('Client', 'c1', { value: '{"a":2}' }));
    assert.equal(await store.kv.get('Client', 'c1'), { kind: 'Client', id: 'c1', value: '{"a":2}' });
  });

  test('rows put together are stored as if put one by one: the last of one kind and id wins, first-stored order kept', async () => {
    await store.kv.put(row('Stamp', 'old', { value: '"old"' }));
    await store.kv.putMany([]);
    await store.kv.putMany([
      row('Stamp', 'a1', { value: '"first"', lookup: 'agent-a' }),
      row('Stamp', 'old', { value: '"new"', expires_at: Date.now() + 60_000 }),
      row('Stamp', 'b1', { value: '"b"', grant_id: 'g' }),
      row('Stamp', 'a1', { value: '"second"', lookup: 'agent-a' }),
      row('Other', 'a1', { value: '"other kind"' }),
    ]);
    assert.is((await store.kv.get('Stamp', 'a1'))?.value, '"second"');
    assert.is((await store.kv.get('Stamp', 'old'))?.value, '"new"');
    assert.type((await store.kv.get('Stamp', 'old'))?.expires_at, 'number');
    assert.is((await store.kv.find('Stamp', 'agent-a'))?.id, 'a1');
    assert.is((await store.kv.get('Other', 'a1'))?.value, '"other kind"');
    assert.equal(ids(await store.kv.list('Stamp')), ['old', 'a1', 'b1']);
    assert.is(await store.kv.deleteGrant('g'), 1);
  });

  test('rows are found by their lookup key within their kind, and listed by kind in the order first stored', async () => {
    await store.kv.put(row('Session', 's1', { lookup: 'uid-1' }));
    await store.kv.put(row('Session', 's2', { lookup: 'uid-2' }));
    await store.kv.put(row('Interaction', 'i1', { lookup: 'uid-1' }));
    await store.kv.put(row('Session', 's0'));
    assert.is((await store.kv.find('Session', 'uid-2'))?.id, 's2');
    assert.is((await store.kv.find('Interaction', 'uid-1'))?.id, 'i1');
    assert.is(await store.kv.find('Session', 'nope'), undefined);
    await store.kv.put(row('Session', 's1', { value: '{"again":true}' }));
    assert.equal(ids(await store.kv.list('Session')), ['s1', 's2', 's0']);
    assert.equal(await store.kv.list('Nothing'), []);
    assert.equal(ids(await store.kv.all()), ['s1', 's2', 'i1', 's0']);
  });

  test('an expired row is not returned by any read, and a sweep deletes exactly the expired rows', async () => {
    const soon = Date.now() + 2000;
    await store.kv.put(row('AccessToken', 'old', { expires_at: soon, lookup: 'l', grant_id: 'g' }));
    await store.kv.put(row('AccessToken', 'new', { expires_at: Date.now() + 60_000 }));
    await store.kv.put(row('AccessToken', 'forever'));
    assert.ok(await store.kv.get('AccessToken', 'old'));
    assert.is(await store.kv.count('AccessToken'), 3);
    await sleep(Math.max(0, soon - Date.now()) + 50);
    assert.is(await store.kv.get('AccessToken', 'old'), undefined);
    assert.is(await store.kv.find('AccessToken', 'l'), undefined);
    assert.equal(ids(await store.kv.list('AccessToken')), ['new', 'forever']);
    assert.is(await store.kv.count('AccessToken'), 2, 'an expired row is not counted');
    assert.is(await store.kv.count('Nothing'), 0);
    assert.is(await store.kv.consume('AccessToken', 'old', Date.now()), false);
    assert.is(await store.kv.sweep(Date.now()), 1);
    assert.is(await store.kv.sweep(Date.now()), 0);
    assert.is(await store.kv.deleteGrant('g'), 0, 'the swept row is gone');
    assert.equal(ids(await store.kv.list('AccessToken')), ['new', 'forever']);
  });

  test('consume marks a row once: of concurrent calls exactly one succeeds, and a put clears the mark', async () => {
    await store.kv.put(row('AuthorizationCode', 'code', { expires_at: Date.now() + 60_000 }));
    const results = await Promise.all([1, 2, 3, 4].map((n) => store.kv.consume('AuthorizationCode', 'code', 1000 + n)));
    assert.is(results.filter(Boolean).length, 1);
    const at = 1000 + results.indexOf(true) + 1;
    assert.is((await store.kv.get('AuthorizationCode', 'code'))?.consumed_at, at);
    assert.is(await store.kv.consume('AuthorizationCode', 'missing', 1), false);
    await store.kv.put(row('AuthorizationCode', 'code'));
    assert.is((await store.kv.get('AuthorizationCode', 'code'))?.consumed_at, undefined);
  });

  test('deleting a grant deletes every row of it, of every kind, and nothing else', async () => {
    await store.kv.put(row('Grant', 'g1', { grant_id: 'g1' }));
    await store.kv.put(row('AccessToken', 'a1', { grant_id: 'g1' }));
    await store.kv.put(row('RefreshToken', 'r1', { grant_id: 'g1' }));
    await store.kv.put(row('AccessToken', 'a2', { grant_id: 'g2' }));
    assert.is(await store.kv.deleteGrant('g1'), 3);
    assert.is(await store.kv.get('Grant', 'g1'), undefined);
    assert.is(await store.kv.get('RefreshToken', 'r1'), undefined);
    assert.ok(await store.kv.get('AccessToken', 'a2'));
    assert.is(await store.kv.delete('AccessToken', 'a2'), true);
    assert.is(await store.kv.delete('AccessToken', 'a2'), false);
    assert.is(await store.kv.get('AccessToken', 'a2'), undefined);
  });

  test('putIfAbsent keeps the first value and returns it to every later caller; an expired row is replaced', async () => {
    const first = await store.kv.putIfAbsent(row('Keys', 'k', { value: '"one"' }));
    const again = await Promise.all([
      store.kv.putIfAbsent(row('Keys', 'k', { value: '"two"' })),
      store.kv.putIfAbsent(row('Keys', 'k', { value: '"three"' })),
    ]);
    assert.is(first.value, '"one"');
    assert.equal(
      again.map((e) => e.value),
      ['"one"', '"one"'],
    );
    await store.kv.put(row('Keys', 'e', { value: '"stale"', expires_at: Date.now() - 1 }));
    assert.is((await store.kv.putIfAbsent(row('Keys', 'e', { value: '"fresh"' }))).value, '"fresh"');
    assert.is((await store.kv.get('Keys', 'e'))?.value, '"fresh"');
  });

  if (backend !== 'memory') {
    test('rows, marks and deletions survive closing and reopening the store', async () => {
      await store.kv.put(row('Client', 'c1', { lookup: 'x' }));
      await store.kv.put(row('AuthorizationCode', 'code', { grant_id: 'g' }));
      await store.kv.put(row('Grant', 'g', { grant_id: 'g' }));
      await store.kv.put(row('Session', 's', { lookup: 'u' }));
      assert.ok(await store.kv.consume('Session', 's', 42));
      assert.is(await store.kv.deleteGrant('g'), 2);
      await store.close();
      store = await open();
      assert.is((await store.kv.find('Client', 'x'))?.id, 'c1');
      assert.is((await store.kv.get('Session', 's'))?.consumed_at, 42);
      assert.is(await store.kv.get('Grant', 'g'), undefined);
    });
  }

  if (backend === 'sqlite') {
    test('after a crash the journal replays every kv change as it was decided', async () => {
      await store.kv.put(row('Client', 'c1'));
      await store.kv.put(row('Token', 't1', { grant_id: 'g', expires_at: Date.now() + 60_000 }));
      await store.kv.put(row('Token', 'gone', { expires_at: Date.now() - 1 }));
      await store.kv.put(row('Session', 's'));
      assert.ok(await store.kv.consume('Session', 's', 7));
      assert.is(await store.kv.sweep(Date.now()), 1);
      assert.ok(await store.kv.delete('Client', 'c1'));
      // A second store on the same files while the first never closed: a restart after a crash.
      await leftAsCrashed(store);
      const after = await open();
      assert.is(await after.kv.get('Client', 'c1'), undefined);
      assert.is((await after.kv.get('Session', 's'))?.consumed_at, 7);
      assert.is((await after.kv.get('Token', 't1'))?.grant_id, 'g');
      assert.is(await after.kv.sweep(0), 0);
      assert.equal(ids(await after.kv.list('Token')), ['t1']);
    });
  }

  test.run();
}

const copy = suite('svc store copy carries the key/value table');

copy('unexpired rows, with their marks, lookups and grants, go from sqlite to Postgres and back; expired ones stay behind', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kv-copy-'));
  const pgs = await freshSchema();
  const opened: Store[] = [];
  const openAt = async (backend: 'sqlite' | 'postgres', path: string) => {
    const s = await openStore({ backend, path, checkpoint_bytes: 64 * 1024 * 1024, url: pgs.url, schema: pgs.schema });
    opened.push(s);
    return s;
  };
  try {
    const source = await openAt('sqlite', join(dir, 'a', 'svc.db'));
    await source.kv.put(row('oauth:Client', 'c1'));
    await source.kv.put(row('oauth:Session', 's1', { lookup: 'uid:u', expires_at: Date.now() + 60_000 }));
    await source.kv.put(row('oauth:RefreshToken', 'r1', { grant_id: 'g1' }));
    await source.kv.put(row('oauth:AccessToken', 'old', { expires_at: Date.now() - 1 }));
    assert.ok(await source.kv.consume('oauth:RefreshToken', 'r1', 1234));
    const expected = await source.kv.all();
    assert.equal(ids(expected), ['c1', 's1', 'r1']);
    await copyToPostgres(source, { url: pgs.url, schema: pgs.schema, pairingIds: [] });
    const pg = await openAt('postgres', '');
    assert.equal(await pg.kv.all(), expected);
    assert.is((await pg.kv.find('oauth:Session', 'uid:u'))?.id, 's1');
    const file = join(dir, 'b', 'svc.db');
    await copyToSqlite(pg, { file, pairingIds: [] });
    const back = await openAt('sqlite', file);
    assert.equal(await back.kv.all(), expected);
    assert.is(await back.kv.deleteGrant('g1'), 1);
  } finally {
    for (const s of opened) await s.close();
    await pgs.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

copy.run();
