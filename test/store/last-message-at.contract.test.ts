// A conversation's last message time on every backend: a message written after another but made
// before it (several instances commit in another order than their messages were made) leaves the
// thread's and the DM's `last_message_at` at the later time, while each still counts it.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import { createRoom, inDm, inThread, msg, send } from '../helpers/store-fixtures.js';

for (const backend of BACKENDS) {
  const test = suite(`a conversation's last message time (${backend})`);
  let store: Store;
  storePerTest(test, backend, 'svc-last-at-', async (s) => {
    store = s;
    await store.write([createRoom('r1')]);
  });

  test('a message made earlier but written later does not move it back', async () => {
    const made = [msg('early', inThread('t1')), msg('late', inThread('t1')), msg('dm-early', inDm('d1')), msg('dm-late', inDm('d1'))];
    const [early, late, dmEarly, dmLate] = made;
    await store.write([send(late!), send(dmLate!)]);
    await store.write([send(early!), send(dmEarly!)]);
    const t = await store.getThread('t1');
    assert.equal([t?.message_count, t?.last_message_at], [2, late!.created_at]);
    const d = await store.getDm('d1');
    assert.equal([d?.message_count, d?.last_message_at], [2, dmLate!.created_at]);
  });

  test.run();
}
