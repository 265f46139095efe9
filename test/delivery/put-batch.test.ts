// The delivery records' gathered puts (src/delivery/put-batch.ts) over a real store's table: the
// puts asked for within the gathering window are stored by one putMany, each caller resumes once
// its row is stored, and a batch that fails fails every put in it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GATHER_MS, PutBatch } from '../../src/delivery/put-batch.js';
import { openStore } from '../../src/store/open.js';
import type { KvPut, KvTable, Store } from '../../src/store/types.js';

const test = suite('delivery records: puts gathered');
let dir = '';
let store: Store;
/** The rows of each putMany the batch made, in order. */
let calls: string[][] = [];
const open = () => openStore({ backend: 'sqlite', path: path.join(dir, 'svc.db'), checkpoint_bytes: 64 << 20 });
/** The open store's table (the one open now, after a reopen too), with its putMany counted. */
const kv = (): KvTable => {
  const real = store.kv;
  const counted = Object.create(real) as KvTable;
  counted.putMany = (entries: readonly KvPut[]) => {
    calls.push(entries.map((e) => e.id));
    return real.putMany(entries);
  };
  return counted;
};

test.before.each(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-put-batch-'));
  store = await open();
  calls = [];
});
test.after.each(async () => {
  await store.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const stamp = (id: string, at: number): KvPut => ({ kind: 'Ack', id, value: JSON.stringify({ at }) });

test('puts asked for together are stored by one putMany, and each resolves once its row is stored', async () => {
  const batch = new PutBatch(kv);
  const first = Array.from({ length: 10 }, (_, i) => batch.put(stamp(`agent${i}`, 1)));
  // Asked for a moment later, within the window: the same batch.
  await new Promise((r) => setTimeout(r, GATHER_MS / 5));
  const late = batch.put(stamp('agent0', 2));
  assert.equal(calls, [], 'nothing is stored before the window ends');
  await Promise.all([...first, late]);
  assert.equal(calls, [[...Array.from({ length: 10 }, (_, i) => `agent${i}`), 'agent0']]);
  assert.is((await store.kv.get('Ack', 'agent0'))?.value, '{"at":2}', 'the later put of one row wins');
  assert.is((await store.kv.get('Ack', 'agent9'))?.value, '{"at":1}');
  // After a stored batch, the next put starts a new one.
  await batch.put(stamp('agent3', 3));
  assert.equal(calls.length, 2);
  assert.equal(calls[1], ['agent3']);
});

test('a batch that cannot be stored fails every put in it, and the next batch is tried afresh', async () => {
  const batch = new PutBatch(kv);
  await store.close();
  const puts = [batch.put(stamp('a', 1)), batch.put(stamp('b', 1))];
  const outcomes = await Promise.allSettled(puts);
  assert.equal(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  );
  assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /closed/);
  store = await open();
  await batch.put(stamp('c', 1));
  assert.is((await store.kv.get('Ack', 'c'))?.value, '{"at":1}');
});

test.run();
