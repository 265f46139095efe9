// People's read markers on every backend (src/store/person-read/, #29 part 4): a marker moves
// forward only, each person and conversation has its own, markers of one batch for one key keep the
// newest, and they outlive a reopen (sqlite's journal and checkpoint, postgres's rows).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store, WriteOp } from '../../src/store/types.js';
import { personReadPart } from '../../src/store/person-read/part.js';
import type { PersonReadMarker } from '../../src/store/person-read/records.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';

const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const read = (person: string, ...markers: PersonReadMarker[]): WriteOp => ({ op: 'person.read', person, markers });
const m = (conv: string, id: string, s: number): PersonReadMarker => ({ conv, message_id: id, at: at(s) });
const sorted = (l: PersonReadMarker[]) => [...l].sort((a, b) => a.conv.localeCompare(b.conv));
const markers = (store: Store, person: string) => store.part(personReadPart)!.markers(person);

for (const backend of BACKENDS) {
  const test = suite(`person read markers (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-person-read-', (s) => {
    store = s;
  });

  test('a person with no markers has none, and a marker is stored per person and conversation', async () => {
    assert.equal(await markers(store, 'token:ann'), []);
    await store.write([read('token:ann', m('room:r1', 'a1', 1), m('dm:d1', 'd1', 2))]);
    await store.write([read('token:bob', m('room:r1', 'b1', 3))]);
    assert.equal(sorted(await markers(store, 'token:ann')), [m('dm:d1', 'd1', 2), m('room:r1', 'a1', 1)]);
    assert.equal(await markers(store, 'token:bob'), [m('room:r1', 'b1', 3)]);
  });

  test('a marker moves forward and never back', async () => {
    await store.write([read('token:ann', m('room:r1', 'm5', 5))]);
    await store.write([read('token:ann', m('room:r1', 'm3', 3))]);
    assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'm5', 5)]);
    await store.write([read('token:ann', m('room:r1', 'm7', 7))]);
    assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'm7', 7)]);
  });

  test('two markers for one conversation in one batch keep the newest', async () => {
    await store.write([read('token:ann', m('room:r1', 'm8', 8), m('room:r1', 'm6', 6))]);
    assert.equal(await markers(store, 'token:ann'), [m('room:r1', 'm8', 8)]);
  });

  // The memory backend keeps nothing across a reopen by design.
  if (backend !== 'memory')
    test('markers outlive a reopen', async () => {
      await store.write([read('token:ann', m('room:r1', 'm4', 4))]);
      await store.write([read('token:ann', m('thread:t1', 't1', 9))]);
      await store.close();
      store = await open();
      assert.equal(sorted(await markers(store, 'token:ann')), [m('room:r1', 'm4', 4), m('thread:t1', 't1', 9)]);
    });

  test.run();
}
