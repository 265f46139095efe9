// An attachment's catch-up reads its page from the store as new objects; the live hub resolves the
// audiences of the newest events once, by seq, instead of at every reconnect (on Postgres that was
// most of a busy server's time), and the local ids of one member list are one Set.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import { LiveHub } from '../../src/live/hub.js';
import { silentLogger } from '../../src/log.js';
import type { Store } from '../../src/store/types.js';
import { createRoom, msg, send } from '../helpers/store-fixtures.js';
import { testConfig } from '../helpers/server.js';

test('a page read again is judged from the audiences of its first reading, without store reads', async () => {
  const app = await createApp(parseConfig(testConfig({ store: { backend: 'memory' } }), { baseDir: tmpdir(), env: {} }), {
    log: silentLogger,
    features: [],
  });
  try {
    const { store } = app.ctx;
    await store.write([createRoom('r1', { members: ['a1', 'a2'] })]);
    const m = msg('m1');
    await store.write([send(m)]);
    let reads = 0;
    const counting = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'getRoom') reads++;
        return Reflect.get(target, prop, receiver);
      },
    }) as Store;
    const hub = new LiveHub({ ...app.ctx, store: counting }, app.metrics, () => []);
    try {
      const first = await store.eventsAfter(0, 100);
      await hub.prepare(first);
      const readsFirst = reads;
      assert.ok(readsFirst > 0, 'the first reading reads the room');
      const again = await store.eventsAfter(0, 100);
      assert.is.not(again[0], first[0], 'the store gives new objects');
      await hub.prepare(again);
      assert.is(reads, readsFirst, 'no store read the second time');
      const of = (e: (typeof first)[number]) => hub.audienceOf(e);
      const last = first.length - 1;
      assert.equal([...of(again[last]!).locals], [...of(first[last]!).locals]);
      assert.ok(of(again[last]!).locals.has('a1'));
      // Audiences of one room read share one Set of local ids.
      assert.is(of(again[last]!).locals, of(first[last]!).locals);
    } finally {
      await hub.close();
    }
  } finally {
    await app.close();
  }
});

test.run();
