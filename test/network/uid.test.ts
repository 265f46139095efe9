// The network uid (src/network/uid.ts): kept in a store that keeps things, so a reopened sqlite
// store answers the same one; the memory store keeps nothing, so each start is a new uid (a new
// network: nothing kept for the last start is used with it).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { networkUid } from '../../src/network/uid.js';
import { openStore } from '../../src/store/open.js';

test('a sqlite store answers the uid it generated after it is closed and opened again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-uid-'));
  try {
    const cfg = { backend: 'sqlite' as const, path: join(dir, 'data', 'svc.db'), checkpoint_bytes: 64 * 1024 * 1024 };
    let store = await openStore(cfg);
    const first = await networkUid(store.kv);
    assert.match(first, /^nuid_/);
    assert.is(await networkUid(store.kv), first);
    await store.close();
    store = await openStore(cfg);
    assert.is(await networkUid(store.kv), first);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('each start of a memory store is a new uid, kept for as long as that store runs', async () => {
  const memory = { backend: 'memory' as const, path: '', checkpoint_bytes: 0 };
  const a = await openStore(memory);
  const b = await openStore(memory);
  const uid = await networkUid(a.kv);
  assert.is(await networkUid(a.kv), uid);
  assert.is.not(await networkUid(b.kv), uid);
  await a.close();
  await b.close();
});

test.run();
