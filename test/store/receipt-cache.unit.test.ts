// What a Postgres store remembers of receipt records (store/receipts/pg-cache.ts): only under the
// version it wrote, with the write's own records over what its batch knew, within a bound.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newVersion, ReceiptCache } from '../../src/store/receipts/pg-cache.js';
import { receiptKey, type ReceiptRecord } from '../../src/store/receipts/records.js';

const AT = '2026-01-01T00:00:00.000Z';
const rec = (reader: string, conv: string, hi: number): ReceiptRecord => ({ reader, conv, kind: 'delivered', ranges: [[1, hi, AT]] });
const known = (...rs: (ReceiptRecord | [string, null])[]) => new Map(rs.map((r) => (Array.isArray(r) ? r : ([receiptKey(r), r] as const))));

test('records are given back only under the version they were written with', () => {
  const c = new ReceiptCache();
  const v1 = newVersion();
  const absent = receiptKey({ reader: 'agent:z', conv: 'room:r', kind: 'delivered' });
  c.written('room:r', v1, known(rec('agent:x', 'room:r', 3), [absent, null]), [rec('agent:y', 'room:r', 5), rec('agent:x', 'room:r', 4)]);
  const got = c.at('room:r', v1);
  assert.equal(got?.get(receiptKey(rec('agent:x', 'room:r', 0))), rec('agent:x', 'room:r', 4), "the write's own record wins");
  assert.equal(got?.get(receiptKey(rec('agent:y', 'room:r', 0))), rec('agent:y', 'room:r', 5));
  assert.is(got?.get(absent), null, 'known to be absent');
  assert.is(c.at('room:r', newVersion()), undefined, "another version (another instance's write, or none committed)");
  assert.is(c.at('room:r', undefined), undefined, 'a conversation without a version');
  assert.is(c.at('room:other', v1), undefined);
});

test('a write without what its batch knew forgets the conversation', () => {
  const c = new ReceiptCache();
  const v1 = newVersion();
  c.written('room:r', v1, known(), [rec('agent:x', 'room:r', 1)]);
  assert.ok(c.at('room:r', v1));
  c.written('room:r', newVersion(), undefined, [rec('agent:x', 'room:r', 2)]);
  assert.is(c.at('room:r', v1), undefined);
});

test('the least recently written conversations go first past the bound', () => {
  const c = new ReceiptCache();
  const versions: string[] = [];
  // 60 conversations of 1,000 records: past the 50,000 remembered at most.
  for (let i = 0; i < 60; i++) {
    const v = newVersion();
    versions.push(v);
    const conv = `room:r${i}`;
    c.written(
      conv,
      v,
      known(),
      Array.from({ length: 1000 }, (_, k) => rec(`agent:a${k}`, conv, 1)),
    );
  }
  assert.is(c.at('room:r0', versions[0]), undefined);
  assert.is(c.at('room:r9', versions[9]), undefined);
  assert.is(c.at('room:r10', versions[10])?.size, 1000);
  assert.is(c.at('room:r59', versions[59])?.size, 1000);
});

test.run();
