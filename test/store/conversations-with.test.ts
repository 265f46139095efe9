// conversationsWith, the member read behind the unread counts (issue 38 item 7), on every backend:
// the active rooms listing one of the ids, public or not, and the DMs with one of the participants,
// in creation order; a member change, a removal and a reopen are followed. On sqlite it reads the
// conv_members index, which a store from before it gets filled when opened. pageDms (GET /v1/dms)
// pages the same DMs by participant, or all of them, with cursors, through it too.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/open.js';
import type { MemberQuery, Store } from '../../src/store/types.js';
import { createRoom, ids, inDm, members, msg, removeRoom, send } from '../helpers/store-fixtures.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';

const named = async (store: Store, q: MemberQuery) => {
  const r = await store.conversationsWith(q);
  return { rooms: ids(r.rooms), dms: ids(r.dms) };
};

/** Rooms r1..r4 and two DMs; r3 is private, r4 has no member of interest. */
async function fill(store: Store): Promise<void> {
  await store.write([createRoom('r1', { members: ['a1', 'a2'] })]);
  await store.write([createRoom('r2', { members: ['net1:a1'] })]);
  await store.write([createRoom('r3', { members: ['a2', 'a3'], visibility: 'private' })]);
  await store.write([createRoom('r4', { members: [] })]);
  await store.write([send(msg('m1', inDm('d1', ['net1:a1', 'net1:b'])))]);
  await store.write([send(msg('m2', inDm('d2', ['net1:b', 'net1:c'])))]);
}

for (const backend of BACKENDS) {
  const test = suite(`conversationsWith (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-convs-', (s) => {
    store = s;
  });

  test('rooms by member id (either spelling the query names) and DMs by participant, in creation order', async () => {
    await fill(store);
    assert.equal(await named(store, { members: ['a1', 'net1:a1'], participants: ['net1:a1'] }), { rooms: ['r1', 'r2'], dms: ['d1'] });
    assert.equal(await named(store, { members: ['a3', 'a2'], participants: ['net1:c', 'net1:b'] }), {
      rooms: ['r1', 'r3'],
      dms: ['d1', 'd2'],
    });
    assert.equal(await named(store, { members: [], participants: [] }), { rooms: [], dms: [] });
    assert.equal(await named(store, { members: ['nobody'], participants: ['net1:nobody'] }), { rooms: [], dms: [] });
  });

  test('a member change, a removal and a later DM message are followed, and so is a reopen', async () => {
    await fill(store);
    await store.write([send(msg('m3', inDm('d1', ['net1:a1', 'net1:b'])))]);
    await store.write([members('r1', ['a4'], ['a1'])]);
    await store.write([members('r4', ['a1'])]);
    await store.write([removeRoom('r2')]);
    const expected = { rooms: ['r4'], dms: ['d1'] };
    assert.equal(await named(store, { members: ['a1', 'net1:a1'], participants: ['net1:a1'] }), expected);
    assert.equal(await named(store, { members: ['a4'], participants: [] }), { rooms: ['r1'], dms: [] });
    if (backend === 'memory') return;
    await store.close();
    store = await open();
    assert.equal(await named(store, { members: ['a1', 'net1:a1'], participants: ['net1:a1'] }), expected);
  });

  test("pageDms: every DM or a participant's, newest page first, with cursors either way", async () => {
    await fill(store);
    await store.write([send(msg('m3', inDm('d3', ['net1:a1', 'net1:c'])))]);
    const page = async (f: Parameters<Store['pageDms']>[0], q: Parameters<Store['pageDms']>[1]) => {
      const r = await store.pageDms(f, q);
      return { ids: ids(r.items), has_more: r.has_more, has_older: r.has_older };
    };
    assert.equal(await page({ all: true }, { limit: 2 }), { ids: ['d2', 'd3'], has_more: true, has_older: true });
    assert.equal(await page({ all: true }, { limit: 2, before: 'd2' }), { ids: ['d1'], has_more: false, has_older: false });
    assert.equal(await page({ participants: ['net1:a1'] }, { limit: 10 }), { ids: ['d1', 'd3'], has_more: false, has_older: false });
    assert.equal(await page({ participants: ['net1:a1'] }, { limit: 1, after: 'd1' }), { ids: ['d3'], has_more: false, has_older: true });
    assert.equal(await page({ participants: ['net1:b', 'net1:c'] }, { limit: 10 }), {
      ids: ['d1', 'd2', 'd3'],
      has_more: false,
      has_older: false,
    });
    assert.equal(await page({ participants: [] }, { limit: 10 }), { ids: [], has_more: false, has_older: false });
    // A DM the filter does not name is no cursor for it.
    const refused = await store.pageDms({ participants: ['net1:a1'] }, { limit: 10, before: 'd2' }).then(
      () => undefined,
      (err: { code?: string }) => err.code,
    );
    assert.is(refused, 'unknown_cursor');
  });

  test.run();
}

const upgrade = suite('conversationsWith on a sqlite store from before conv_members');

upgrade('the index is filled from the rooms and DMs when the store is opened', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-convs-upgrade-'));
  const file = join(dir, 'svc.db');
  const openIt = () => openStore({ backend: 'sqlite', path: file, checkpoint_bytes: 64 * 1024 * 1024 });
  try {
    let store = await openIt();
    await fill(store);
    await store.write([removeRoom('r2')]);
    await store.close();
    const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
    const db = new SQL.Database(readFileSync(file));
    db.run('DROP TABLE conv_members');
    db.run("UPDATE meta SET value = '12' WHERE key = 'schema_version'");
    writeFileSync(file, db.export());
    db.close();
    store = await openIt();
    try {
      assert.equal(await named(store, { members: ['a1', 'net1:a1', 'a3'], participants: ['net1:b'] }), {
        rooms: ['r1', 'r3'],
        dms: ['d1', 'd2'],
      });
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

upgrade.run();
