// The expiring key/value table on Postgres (table.ts), shared by every instance on the schema: its
// table and the table over it. Each change is one statement, so consume and insert-if-absent are
// atomic across instances. Expiry is judged on this process's clock, as the OAuth server judges its
// own tokens' lifetimes.

import type pg from 'pg';
import { storeErrorOf } from '../postgres/errors.js';
import { type KvEntry, type KvPut, type KvRow, type KvTable, kvEntryOf, kvKey } from './table.js';

/** The table's name in the store's schema. */
export const KV_TABLE = 'kv';

/**
 * The table (`S` is the schema), as migration 8 of postgres/schema.ts made it (that migration's
 * `sql` is this text). Times are milliseconds since the epoch; rows are found by (kind, id), by
 * (kind, lookup), by grant; `seq` keeps the order rows were first stored in.
 */
export const KV_POSTGRES_DDL = `
      CREATE TABLE IF NOT EXISTS S.kv (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        kind text NOT NULL,
        id text NOT NULL,
        value text NOT NULL,
        expires_at bigint,
        consumed_at bigint,
        lookup text,
        grant_id text,
        PRIMARY KEY (kind, id)
      );
      CREATE INDEX IF NOT EXISTS kv_by_lookup ON S.kv (kind, lookup) WHERE lookup IS NOT NULL;
      CREATE INDEX IF NOT EXISTS kv_by_grant ON S.kv (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX IF NOT EXISTS kv_by_expiry ON S.kv (expires_at) WHERE expires_at IS NOT NULL;
    `;

/** The table's columns (but `seq`), as read and as `svc store copy` fills them. */
export const KV_COLUMNS = 'kind, id, value, expires_at, consumed_at, lookup, grant_id';

/** A copied row's values for KV_COLUMNS (`svc store copy` into Postgres), marks included. */
export const kvCopyRow = (e: KvEntry): unknown[] => [
  e.kind,
  e.id,
  e.value,
  e.expires_at ?? null,
  e.consumed_at ?? null,
  e.lookup ?? null,
  e.grant_id ?? null,
];

/** Rows unexpired at the time given as parameter $n. */
const live = (n: number): string => `(expires_at IS NULL OR expires_at > $${n})`;

export class PgKv implements KvTable {
  constructor(
    private readonly pool: pg.Pool,
    /** The table, quoted and qualified. */
    private readonly table: string,
    private readonly clock: () => number = Date.now,
  ) {}

  private async query(text: string, values: unknown[]): Promise<pg.QueryResult<KvRow>> {
    try {
      return await this.pool.query<KvRow>(text, values);
    } catch (err) {
      throw storeErrorOf(err);
    }
  }

  private upsert(onConflictWhere: string, rows = 'VALUES ($1, $2, $3, $4, NULL, $5, $6)'): string {
    return (
      `INSERT INTO ${this.table} (kind, id, value, expires_at, consumed_at, lookup, grant_id) ${rows} ` +
      'ON CONFLICT (kind, id) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at, consumed_at = NULL, ' +
      `lookup = EXCLUDED.lookup, grant_id = EXCLUDED.grant_id${onConflictWhere}`
    );
  }

  private static values(e: KvPut): unknown[] {
    return [e.kind, e.id, e.value, e.expires_at ?? null, e.lookup ?? null, e.grant_id ?? null];
  }

  async put(entry: KvPut): Promise<void> {
    await this.query(this.upsert(''), PgKv.values(entry));
  }

  async putMany(entries: readonly KvPut[]): Promise<void> {
    // One statement may change a row once: the last put of each kind and id is the one sent.
    const last = new Map<string, KvPut>();
    for (const e of entries) last.set(kvKey(e.kind, e.id), e);
    if (last.size === 0) return;
    const rows = [...last.values()].map(PgKv.values);
    const column = (k: number) => rows.map((r) => r[k]);
    // In the order given, so rows first stored here keep that order (seq).
    const from =
      'SELECT kind, id, value, expires_at, NULL::bigint, lookup, grant_id ' +
      'FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) WITH ORDINALITY ' +
      'AS r(kind, id, value, expires_at, lookup, grant_id, n) ORDER BY n';
    await this.query(this.upsert('', from), [0, 1, 2, 3, 4, 5].map(column));
  }

  async putIfAbsent(entry: KvPut): Promise<KvEntry> {
    // An expired row is replaced; a live one (another instance's, perhaps) is kept and returned.
    await this.query(this.upsert(` WHERE ${this.table}.expires_at IS NOT NULL AND ${this.table}.expires_at <= $7`), [
      ...PgKv.values(entry),
      this.clock(),
    ]);
    return (await this.get(entry.kind, entry.id)) ?? { ...entry };
  }

  async get(kind: string, id: string): Promise<KvEntry | undefined> {
    const r = await this.query(`SELECT ${KV_COLUMNS} FROM ${this.table} WHERE kind = $1 AND id = $2 AND ${live(3)}`, [
      kind,
      id,
      this.clock(),
    ]);
    return r.rows[0] && kvEntryOf(r.rows[0]);
  }

  async find(kind: string, lookup: string): Promise<KvEntry | undefined> {
    const r = await this.query(
      `SELECT ${KV_COLUMNS} FROM ${this.table} WHERE kind = $1 AND lookup = $2 AND ${live(3)} ORDER BY seq DESC LIMIT 1`,
      [kind, lookup, this.clock()],
    );
    return r.rows[0] && kvEntryOf(r.rows[0]);
  }

  async list(kind: string): Promise<KvEntry[]> {
    const r = await this.query(`SELECT ${KV_COLUMNS} FROM ${this.table} WHERE kind = $1 AND ${live(2)} ORDER BY seq`, [kind, this.clock()]);
    return r.rows.map(kvEntryOf);
  }

  async count(kind: string): Promise<number> {
    const r = await this.query(`SELECT COUNT(*) AS n FROM ${this.table} WHERE kind = $1 AND ${live(2)}`, [kind, this.clock()]);
    return Number((r.rows[0] as unknown as { n: string }).n);
  }

  async all(): Promise<KvEntry[]> {
    const r = await this.query(`SELECT ${KV_COLUMNS} FROM ${this.table} WHERE ${live(1)} ORDER BY seq`, [this.clock()]);
    return r.rows.map(kvEntryOf);
  }

  async delete(kind: string, id: string): Promise<boolean> {
    const r = await this.query(`DELETE FROM ${this.table} WHERE kind = $1 AND id = $2`, [kind, id]);
    return (r.rowCount ?? 0) > 0;
  }

  async consume(kind: string, id: string, at: number): Promise<boolean> {
    const r = await this.query(
      `UPDATE ${this.table} SET consumed_at = $3 WHERE kind = $1 AND id = $2 AND consumed_at IS NULL AND ${live(4)}`,
      [kind, id, at, this.clock()],
    );
    return r.rowCount === 1;
  }

  async deleteGrant(grantId: string): Promise<number> {
    const r = await this.query(`DELETE FROM ${this.table} WHERE grant_id = $1`, [grantId]);
    return r.rowCount ?? 0;
  }

  async sweep(now: number): Promise<number> {
    const r = await this.query(`DELETE FROM ${this.table} WHERE expires_at <= $1`, [now]);
    return r.rowCount ?? 0;
  }
}
