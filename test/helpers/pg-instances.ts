// Postgres stores as instances of one network: opened together on one schema, and what a store's
// feed delivers, for the tests of several instances.

import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/index.js';
import type { StoredEvent } from '../../src/store/types.js';
import type { PgSchema } from './pg.js';

/** Two stores opened at once on `pgs`, as two instances starting together. */
export function twoInstances(pgs: PgSchema): Promise<[PostgresStore, PostgresStore]> {
  const open = () => openPostgresStore({ url: pgs.url, schema: pgs.schema });
  return Promise.all([open(), open()]);
}

/** Collects what a store's feed delivers after `from` (its head: from now on). */
export function collect(store: PostgresStore, from = store.feed.head): StoredEvent[] {
  const got: StoredEvent[] = [];
  store.feed.subscribe(from, (evs) => got.push(...evs));
  return got;
}
