// Receipt records on every backend (src/store/receipts/): marks join into ranges against what is
// stored, a covered mark writes nothing, racing marks on one new record both count, and the records
// outlive a reopen.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/open.js';
import type { Store, WriteOp, WriteResult } from '../../src/store/types.js';
import { receiptsPart } from '../../src/store/receipts/part.js';
import type { ReceiptMark } from '../../src/store/receipts/records.js';
import { createRoom, inRoom, msg, send } from '../helpers/store-fixtures.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { copyToPostgres } from '../../src/store/postgres/copy.js';
import { copyToSqlite } from '../../src/store/sqlite/copy.js';

const BACKENDS = ['memory', 'sqlite', 'postgres'] as const;
const AT = '2026-01-01T00:00:00.000Z';
const mark = (lo: number, hi: number, kind: ReceiptMark['kind'] = 'delivered', reader = 'agent:a'): WriteOp => ({
  op: 'receipt.mark',
  marks: [{ reader, conv: 'room:r1', kind, lo, hi, at: AT }],
});
const changed = (r: WriteResult) => (r.outcomes[0] as { changed: ReceiptMark[] }).changed.length;

for (const backend of BACKENDS) {
  const test = suite(`receipt records (${backend})`);
  let dir = '';
  let pgs: PgSchema | undefined;
  let store: Store;
  const open = () =>
    openStore({
      backend,
      path: join(dir, 'data', 'svc.db'),
      checkpoint_bytes: 64 * 1024 * 1024,
      ...(pgs ? { url: pgs.url, schema: pgs.schema } : {}),
    });
  test.before.each(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-receipts-'));
    pgs = backend === 'postgres' ? await freshSchema() : undefined;
    store = await open();
  });
  test.after.each(async () => {
    await store.close();
    await pgs?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("finds each message's event seq and joins adjacent marks into one range", async () => {
    for (const id of ['m1', 'm2', 'm3']) await store.write([send(msg(id, inRoom()))]);
    const seqs = await store.messageSeqs(['m1', 'm2', 'm3', 'nope']);
    assert.equal([...seqs.keys()], ['m1', 'm2', 'm3']);
    const [s1, s2, s3] = ['m1', 'm2', 'm3'].map((id) => seqs.get(id)!);
    assert.ok(s1! < s2! && s2! < s3!);
    assert.is(changed(await store.write([mark(s1!, s2!)])), 1);
    assert.is(changed(await store.write([mark(s1!, s1!)])), 0, 'a covered mark changes nothing');
    assert.is(changed(await store.write([mark(s2! + 1, s3!)])), 1);
    assert.is(changed(await store.write([mark(s3!, s3!, 'read')])), 1);
    const recs = await store.part(receiptsPart)!.list('room:r1');
    assert.equal(
      recs.map((r) => [r.reader, r.kind, r.ranges.map(([a, b]) => [a, b])]),
      [
        ['agent:a', 'delivered', [[s1, s3]]],
        ['agent:a', 'read', [[s3, s3]]],
      ],
    );
    assert.equal(await store.part(receiptsPart)!.list('room:other'), []);
  });

  test('two marks racing on one new record both count', async () => {
    await Promise.all([store.write([mark(1, 2)]), store.write([mark(10, 12)]), store.write([mark(20, 20)])]);
    const [rec] = await store.part(receiptsPart)!.list('room:r1');
    assert.equal(
      rec!.ranges.map(([a, b]) => [a, b]),
      [
        [1, 2],
        [10, 12],
        [20, 20],
      ],
    );
  });

  test('svc store copy carries receipt records to sqlite and Postgres', async () => {
    await store.write([createRoom('r1')]);
    for (const id of ['m1', 'm2']) await store.write([send(msg(id, inRoom()))]);
    const seqs = await store.messageSeqs(['m1', 'm2']);
    await store.write([mark(seqs.get('m1')!, seqs.get('m2')!, 'read', 'agent:z')]);
    const want = await store.part(receiptsPart)!.list('room:r1');
    assert.is(want.length, 1);
    await copyToSqlite(store, { file: join(dir, 'copy', 'svc.db'), pairingIds: [] });
    const copied = await openStore({ backend: 'sqlite', path: join(dir, 'copy', 'svc.db'), checkpoint_bytes: 64 * 1024 * 1024 });
    try {
      assert.equal(await copied.part(receiptsPart)!.list('room:r1'), want);
      assert.equal(await copied.messageSeqs(['m1', 'm2']), seqs);
    } finally {
      await copied.close();
    }
    const target = await freshSchema();
    try {
      await copyToPostgres(store, { url: target.url, schema: target.schema, pairingIds: [] });
      const pgCopy = await openStore({
        backend: 'postgres',
        url: target.url,
        schema: target.schema,
        path: join(dir, 'unused.db'),
        checkpoint_bytes: 64 * 1024 * 1024,
      });
      try {
        assert.equal(await pgCopy.part(receiptsPart)!.list('room:r1'), want);
      } finally {
        await pgCopy.close();
      }
    } finally {
      await target.drop();
    }
  });

  if (backend !== 'memory') {
    test('records outlive a reopen', async () => {
      await store.write([mark(3, 7, 'read', 'human:op')]);
      await store.close();
      store = await open();
      const [rec] = await store.part(receiptsPart)!.list('room:r1');
      assert.is(rec!.reader, 'human:op');
      assert.equal(rec!.ranges, [[3, 7, AT]]);
    });
  }

  test.run();
}
