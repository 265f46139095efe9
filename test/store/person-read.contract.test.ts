// The person-read concern (src/store/person-read/) on every backend, through the store as the server
// uses it: markers of one batch against each other and the stored ones (the same "advance if newer"
// rule in each backend's own code), a refused batch, a crash (sqlite replays its journal through the
// part), a database whose table was made by the core's old migration, a store opened without the
// part, and that the part claims only its own effects. test/store/person-read.test.ts holds the rule
// one write at a time.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Effect } from '../../src/store/effects.js';
import { openStore } from '../../src/store/open.js';
import { MemoryPersonRead } from '../../src/store/person-read/memory.js';
import type { PersonReadEffect } from '../../src/store/person-read/ops.js';
import { personReadPart } from '../../src/store/person-read/part.js';
import { postgresPersonRead } from '../../src/store/person-read/postgres.js';
import type { PersonReadMarker } from '../../src/store/person-read/records.js';
import { sqlitePersonRead } from '../../src/store/person-read/sqlite.js';
import type { AnyPart } from '../../src/store/part.js';
import type { Store, WriteOp } from '../../src/store/types.js';
import { freshSchema, sql, type PgSchema } from '../helpers/pg.js';
import { BACKENDS, storePerTest, type Backend } from '../helpers/store-per-test.js';
import { leftAsCrashed, codeOf, createRoom } from '../helpers/store-fixtures.js';

const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const read = (person: string, ...markers: PersonReadMarker[]): WriteOp => ({ op: 'person.read', person, markers });
const m = (conv: string, id: string, s: number): PersonReadMarker => ({ conv, message_id: id, at: at(s) });
const sorted = (l: PersonReadMarker[]) => [...l].sort((a, b) => a.conv.localeCompare(b.conv));
const markers = async (store: Store, person: string) => sorted(await store.part(personReadPart)!.markers(person));

/** A store on `dir` (sqlite) or `pgs` (postgres) keeping `parts`. */
const openOn = (backend: Backend, dir: string, pgs: PgSchema | undefined, parts?: readonly AnyPart[]) =>
  openStore(
    {
      backend,
      path: join(dir, 'data', 'svc.db'),
      checkpoint_bytes: 64 * 1024 * 1024,
      ...(pgs ? { url: pgs.url, schema: pgs.schema } : {}),
    },
    undefined,
    parts,
  );

for (const backend of BACKENDS) {
  const test = suite(`the person-read concern (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-person-read-contract-', (s) => {
    store = s;
  });

  test('each marker of a batch is held against the stored one and the batch’s earlier ones', async () => {
    await store.write([read('token:ann', m('room:r1', 'm5', 5))]);
    const r = await store.write([
      // Older than the stored one: nothing.
      read('token:ann', m('room:r1', 'm3', 3)),
      read('token:ann', m('room:r1', 'm7', 7), m('dm:d1', 'd2', 2)),
      // Older than the batch's own: nothing.
      read('token:ann', m('room:r1', 'm6', 6)),
      read('token:bob', m('room:r1', 'm1', 1)),
    ]);
    assert.equal(
      r.outcomes.map((o) => o.op),
      ['person.read', 'person.read', 'person.read', 'person.read'],
    );
    assert.equal(r.events, []);
    assert.equal(await markers(store, 'token:ann'), [m('dm:d1', 'd2', 2), m('room:r1', 'm7', 7)]);
    assert.equal(await markers(store, 'token:bob'), [m('room:r1', 'm1', 1)]);
  });

  test('another message of the same time replaces the marker; the same message changes nothing', async () => {
    await store.write([read('token:ann', m('room:r1', 'a', 4))]);
    await store.write([read('token:ann', m('room:r1', 'b', 4))]);
    assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'b', 4)]);
    await store.write([read('token:ann', m('room:r1', 'c', 4), m('room:r1', 'c', 4))]);
    assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'c', 4)]);
  });

  test('a refused batch writes none of its markers', async () => {
    assert.is(
      await codeOf(() => store.write([read('token:ann', m('room:r1', 'm1', 1)), createRoom('r1'), createRoom('r1')])),
      'room_exists',
    );
    assert.equal(await markers(store, 'token:ann'), []);
  });

  if (backend === 'sqlite')
    test('after a crash the journal replays the markers through the part', async () => {
      await store.write([read('token:ann', m('room:r1', 'm4', 4))]);
      await store.write([read('token:ann', m('room:r1', 'm2', 2), m('thread:t1', 't1', 9))]);
      // A second store on the same files while the first never closed: a restart after a crash.
      await leftAsCrashed(store);
      const after = await open();
      assert.equal(await markers(after, 'token:ann'), [m('room:r1', 'm4', 4), m('thread:t1', 't1', 9)]);
    });

  test.run();
}

const without = suite('a store opened without the person-read part');

for (const backend of BACKENDS)
  without(`${backend}: has no reads for it and refuses its op`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-person-read-without-'));
    const pgs = backend === 'postgres' ? await freshSchema() : undefined;
    const store = await openOn(backend, dir, pgs, []);
    try {
      assert.is(store.part(personReadPart), undefined);
      assert.is(await codeOf(() => store.write([read('token:ann', m('room:r1', 'm1', 1))])), 'corrupt');
    } finally {
      await store.close();
      await pgs?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

without.run();

// A database made before the part kept its own versions: its table came from the core's migration
// (sqlite 9, Postgres 6) and `part:person-read` is not in its meta. The part's first migration is
// that text with IF NOT EXISTS, so the stored markers stay.
const before = suite('a database made before the person-read part');

before('sqlite: the part takes its table as it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-person-read-before-'));
  try {
    let store = await openOn('sqlite', dir, undefined);
    await store.write([read('token:ann', m('room:r1', 'm4', 4))]);
    await store.close();
    const file = join(dir, 'data', 'svc.db');
    const SQL = await initSqlJs();
    const db = new SQL.Database(readFileSync(file));
    db.run("DELETE FROM meta WHERE key = 'part:person-read'");
    writeFileSync(file, db.export());
    db.close();
    store = await openOn('sqlite', dir, undefined);
    try {
      assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'm4', 4)]);
      await store.write([read('token:ann', m('room:r1', 'm5', 5))]);
      assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'm5', 5)]);
    } finally {
      await store.close();
    }
    const again = new SQL.Database(readFileSync(file));
    assert.equal(again.exec("SELECT value FROM meta WHERE key = 'part:person-read'")[0]?.values, [['1']]);
    again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

before('postgres: the part takes its table as it is', async () => {
  const pgs = await freshSchema();
  try {
    let store = await openOn('postgres', '', pgs);
    await store.write([read('token:ann', m('room:r1', 'm4', 4))]);
    await store.close();
    await sql(pgs.url, `DELETE FROM ${pgs.schema}.meta WHERE key = 'part:person-read'`);
    store = await openOn('postgres', '', pgs);
    try {
      assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'm4', 4)]);
    } finally {
      await store.close();
    }
    assert.equal(await sql(pgs.url, `SELECT value FROM ${pgs.schema}.meta WHERE key = 'part:person-read'`), [{ value: '1' }]);
  } finally {
    await pgs.drop();
  }
});

before.run();

const parts = suite('the person-read part claims only its own effects');
const other: Effect = { op: 'pairing.delete', pairing_id: 'p1' };
const advance = (person: string, marker: PersonReadMarker): PersonReadEffect => ({ op: 'person_read.advance', person, marker });

parts('owns', () => {
  assert.is(personReadPart.owns(other), false);
  assert.ok(personReadPart.owns(advance('token:ann', m('room:r1', 'm1', 1))));
});

parts('memory', async () => {
  const mem = new MemoryPersonRead();
  mem.apply(advance('token:ann', m('room:r1', 'm2', 2)));
  mem.apply(advance('token:ann', m('room:r1', 'm1', 1)));
  assert.equal(await mem.reads.markers('token:ann'), [m('room:r1', 'm2', 2)]);
  assert.equal(await mem.reads.markers('token:bob'), []);
});

parts('sqlite', () => {
  const ran: string[] = [];
  sqlitePersonRead.apply((text) => void ran.push(text.split(' ').slice(0, 3).join(' ')), advance('token:ann', m('room:r1', 'm1', 1)));
  assert.equal(ran, ['INSERT INTO person_read']);
});

parts('postgres: one row per person and conversation, the batch’s newest', () => {
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  const ctes = postgresPersonRead.ctes(
    [advance('token:ann', m('room:r1', 'm2', 2)), advance('token:ann', m('room:r1', 'm1', 1)), advance('token:bob', m('room:r1', 'm1', 1))],
    { param, row: (p) => `(${p.map(param).join(', ')})`, table: (n) => `s.${n}` },
  );
  assert.equal(
    ctes.map((c) => c.split(' ').slice(0, 3).join(' ')),
    ['INSERT INTO s.person_read'],
  );
  assert.equal(values, ['token:ann', 'room:r1', 'm2', at(2), 'token:bob', 'room:r1', 'm1', at(1)]);
});

parts.run();
