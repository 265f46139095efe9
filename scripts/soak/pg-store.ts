// `--store postgres`: the soak's PostgreSQL (SVC_TEST_PG_URL, else a throwaway cluster as the tests
// start one, removed when the soak ends) with a fresh schema, and what `--probe` reads there: each
// table's size with its indexes and TOAST, and the events by type, after warm-up and at the end.

import { freshSchema, sharedCluster, sql } from '../../test/helpers/pg.js';

export interface PgStore {
  url: string;
  schema: string;
}

export async function pgStore(): Promise<PgStore> {
  const s = await freshSchema(await sharedCluster());
  return { url: s.url, schema: s.schema };
}

interface Probe {
  tables: Map<string, number>;
  events: Map<string, { count: number; bytes: number }>;
}

const probes = new Map<string, Probe>();
const mib = (b: number) => (b / 1048576).toFixed(2);

/** Reads the schema's table sizes and events by type as `name`; at `end`, prints what grew since `warm`. */
export async function probePg(store: PgStore, name: string): Promise<void> {
  const tables = await sql<{ relname: string; bytes: string }>(
    store.url,
    'SELECT c.relname, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ' +
      "WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY 2 DESC",
    [store.schema],
  );
  const events = await sql<{ type: string; n: string; bytes: string }>(
    store.url,
    `SELECT type, count(*) AS n, coalesce(sum(octet_length(body)), 0) AS bytes FROM "${store.schema}".events GROUP BY type ORDER BY 3 DESC`,
  );
  const p: Probe = {
    tables: new Map(tables.map((t) => [t.relname, Number(t.bytes)])),
    events: new Map(events.map((e) => [e.type, { count: Number(e.n), bytes: Number(e.bytes) }])),
  };
  probes.set(name, p);
  const warm = name === 'end' ? probes.get('warm') : undefined;
  const total = [...p.tables.values()].reduce((a, b) => a + b, 0);
  const wTotal = warm ? [...warm.tables.values()].reduce((a, b) => a + b, 0) : 0;
  console.log(`probe ${name}: tables ${mib(total)} MiB${warm ? ` (+${mib(total - wTotal)} since warm-up)` : ''}`);
  for (const [t, b] of p.tables) {
    const grew = warm ? b - (warm.tables.get(t) ?? 0) : 0;
    if (b >= 65536) console.log(`  ${t.padEnd(24)} ${mib(b).padStart(9)} MiB${warm ? ` (+${mib(grew)})` : ''}`);
  }
  for (const [t, e] of p.events) {
    const w = warm?.events.get(t);
    console.log(
      `  events ${t.padEnd(22)} ${String(e.count).padStart(8)} of ${mib(e.bytes)} MiB${w ? ` (+${e.count - w.count}, +${mib(e.bytes - w.bytes)} MiB)` : ''}`,
    );
  }
}
