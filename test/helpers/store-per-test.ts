// A fresh store for each test of a suite on one backend: its own temp folder (sqlite), a fresh
// schema on the test server (postgres, test/helpers/pg.ts). Every store a test opens, reopened ones
// included, is closed after it (close is idempotent on every backend).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'uvu';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { freshSchema, type PgSchema } from './pg.js';

export const BACKENDS = ['memory', 'sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

/**
 * Registers the suite's before/after hooks: before each test a new store is opened and handed to
 * `opened`. Returns `open`, which opens the same store again (a reopen, or a second store on the
 * same files).
 */
export function storePerTest(test: Test, backend: Backend, prefix: string, opened: (store: Store) => unknown): () => Promise<Store> {
  let dir = '';
  let pgs: PgSchema | undefined;
  let stores: Store[] = [];
  const open = async (): Promise<Store> => {
    const store = await openStore({
      backend,
      path: join(dir, 'data', 'svc.db'),
      checkpoint_bytes: 64 * 1024 * 1024,
      ...(pgs ? { url: pgs.url, schema: pgs.schema } : {}),
    });
    stores.push(store);
    return store;
  };
  test.before.each(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    pgs = backend === 'postgres' ? await freshSchema() : undefined;
    stores = [];
    await opened(await open());
  });
  test.after.each(async () => {
    for (const store of stores) await store.close();
    await pgs?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return open;
}
