// The files concern (src/store/files/, #41) on every backend, through the store as the server will
// use it: an upload's record, a reference written in its message's batch (refused for a file not
// stored), what one batch decides against its own earlier effects, references dropped with a
// deleted message, and collection of unreferenced files (never one a message references), live
// and after a reopen.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { filesPart } from '../../src/store/files/part.js';
import type { FileRecord } from '../../src/store/files/records.js';
import type { Store } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import { at, codeOf, createRoom, event, msg, send } from '../helpers/store-fixtures.js';

const file = (id: string, created_at = '2026-01-01T00:00:00.000Z', sha = 'a'.repeat(64)): FileRecord => ({
  id,
  sha256: sha,
  size: 3,
  content_type: 'text/plain',
  name: `${id}.txt`,
  created_at,
  uploaded_by: 'n:a',
});
const ref = (file_id: string, message_id: string) => ({ op: 'file.ref' as const, ref: { file_id, message_id, conv: 'room:r1' } });
const reads = (s: Store) => s.part(filesPart)!;

for (const backend of BACKENDS) {
  const test = suite(`the files concern (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-files-contract-', async (s) => {
    store = s;
    await store.write([createRoom('r1')]);
  });

  test('an upload is stored; a message references it in its own batch; an unknown file refuses the batch', async () => {
    await store.write([{ op: 'file.add', file: file('f1') }]);
    assert.equal(await reads(store).get('f1'), file('f1'));
    assert.is(await reads(store).get('f2'), undefined);
    await store.write([send(msg('m1')), ref('f1', 'm1')]);
    assert.equal(await reads(store).refs('f1'), [{ file_id: 'f1', message_id: 'm1', conv: 'room:r1' }]);
    assert.equal(await reads(store).refsOfMessages(['m1', 'mx']), [{ file_id: 'f1', message_id: 'm1', conv: 'room:r1' }]);
    assert.equal(await reads(store).refsOfMessages([]), []);
    assert.is(await codeOf(() => store.write([send(msg('m2')), ref('nope', 'm2')])), 'not_found');
    assert.is(await store.getMessage('m2'), undefined, 'the refused batch stored nothing');
    assert.is(await codeOf(() => store.write([{ op: 'file.add', file: file('f1') }])), 'conflict');
  });

  test('a batch sees its own earlier effects: add then reference; a reference keeps a removal off', async () => {
    const r = await store.write([{ op: 'file.add', file: file('f1') }, send(msg('m1')), ref('f1', 'm1'), { op: 'file.remove', id: 'f1' }]);
    assert.equal(
      r.outcomes.map((o) => (o.op === 'file.remove' ? `removed ${o.removed}` : o.op)),
      ['file.add', 'message.insert', 'file.ref', 'removed false'],
    );
    assert.ok(await reads(store).get('f1'));
  });

  test('unreferenced files are found by age and removed; a deleted message lets go of its file', async () => {
    await store.write([
      { op: 'file.add', file: file('old', '2026-01-01T00:00:00.000Z', 'b'.repeat(64)) },
      { op: 'file.add', file: file('new', '2026-06-01T00:00:00.000Z', 'b'.repeat(64)) },
      { op: 'file.add', file: file('kept', '2026-01-01T00:00:00.000Z') },
      send(msg('m1')),
      ref('kept', 'm1'),
    ]);
    const old = async (before: string) => (await reads(store).unreferenced(before, 10)).map((f) => f.id);
    assert.equal(await old('2026-03-01T00:00:00.000Z'), ['old']);
    assert.is(await reads(store).blobUsers('b'.repeat(64)), 2);
    const r = await store.write([{ op: 'file.remove', id: 'old' }]);
    assert.equal(r.outcomes[0], { op: 'file.remove', removed: true, file: file('old', '2026-01-01T00:00:00.000Z', 'b'.repeat(64)) });
    assert.is(await reads(store).blobUsers('b'.repeat(64)), 1);
    await store.write([{ op: 'message.delete', id: 'm1', at: at(), event: (message) => event('message.deleted', { message }) }]);
    assert.equal(await reads(store).refs('kept'), []);
    assert.equal(await old('2026-03-01T00:00:00.000Z'), ['kept']);
    // A file its deleted message referenced may go at once, whatever its age.
    assert.equal(await old('2025-01-01T00:00:00.000Z'), ['kept']);
    const reopened = backend === 'memory' ? store : await open();
    assert.equal(
      (await reads(reopened).unreferenced('2027-01-01T00:00:00.000Z', 10)).map((f) => f.id),
      ['kept', 'new'],
    );
    assert.equal(await reads(reopened).get('old'), undefined);
  });

  test.run();
}
