// The expiring key/value table on Postgres (kv.ts), shared by every instance on the schema. Each
// change is one statement, so consume and insert-if-absent are atomic across instances. Expiry is
// judged on this process's clock, as the OAuth server judges its own tokens' lifetimes.

import type pg from 'pg';
import { type KvEntry, type KvPut, type KvRow, type KvTable, kvEntryOf } from '../kv.js';
import { storeErrorOf } from './errors.js';
import type { Tables } from './tables.js';

const COLUMNS = 'kind, id, value, expires_at, consumed_at, lookup, grant_id';
/** Rows unexpired at the time given as parameter $n. */
const live = (n: number): string => `(expires_at IS NULL OR expires_at > $${n})`;

export class PgKv implements KvTable {
  constructor(
    private readonly pool: pg.Pool,
    private readonly T: Tables,
    private readonly clock: () => number = Date.now,
  ) {}

  private async query(text: string, values: unknown[]): Promise<pg.QueryResult<KvRow>> {
    try {
      return await this.pool.query<KvRow>(text, values);
    } catch (err) {
      throw storeErrorOf(err);
    }
  }

  private upsert(onConflictWhere: string): string {
    return (
      `INSERT INTO ${this.T.kv} (kind, id, value, expires_at, consumed_at, lookup, grant_id) VALUES ($1, $2, $3, $4, NULL, $5, $6) ` +
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

  async putIfAbsent(entry: KvPut): Promise<KvEntry> {
    // An expired row is replaced; a live one (another instance's, perhaps) is kept and returned.
    await this.query(this.upsert(` WHERE ${this.T.kv}.expires_at IS NOT NULL AND ${this.T.kv}.expires_at <= $7`), [
      ...PgKv.values(entry),
      this.clock(),
    ]);
    return (await this.get(entry.kind, entry.id)) ?? { ...entry };
  }

  async get(kind: string, id: string): Promise<KvEntry | undefined> {
    const r = await this.query(`SELECT ${COLUMNS} FROM ${this.T.kv} WHERE kind = $1 AND id = $2 AND ${live(3)}`, [kind, id, this.clock()]);
    return r.rows[0] && kvEntryOf(r.rows[0]);
  }

  async find(kind: string, lookup: string): Promise<KvEntry | undefined> {
    const r = await this.query(
      `SELECT ${COLUMNS} FROM ${this.T.kv} WHERE kind = $1 AND lookup = $2 AND ${live(3)} ORDER BY seq DESC LIMIT 1`,
      [kind, lookup, this.clock()],
    );
    return r.rows[0] && kvEntryOf(r.rows[0]);
  }

  async list(kind: string): Promise<KvEntry[]> {
    const r = await this.query(`SELECT ${COLUMNS} FROM ${this.T.kv} WHERE kind = $1 AND ${live(2)} ORDER BY seq`, [kind, this.clock()]);
    return r.rows.map(kvEntryOf);
  }

  async count(kind: string): Promise<number> {
    const r = await this.query(`SELECT COUNT(*) AS n FROM ${this.T.kv} WHERE kind = $1 AND ${live(2)}`, [kind, this.clock()]);
    return Number((r.rows[0] as unknown as { n: string }).n);
  }

  async all(): Promise<KvEntry[]> {
    const r = await this.query(`SELECT ${COLUMNS} FROM ${this.T.kv} WHERE ${live(1)} ORDER BY seq`, [this.clock()]);
    return r.rows.map(kvEntryOf);
  }

  async delete(kind: string, id: string): Promise<boolean> {
    const r = await this.query(`DELETE FROM ${this.T.kv} WHERE kind = $1 AND id = $2`, [kind, id]);
    return (r.rowCount ?? 0) > 0;
  }

  async consume(kind: string, id: string, at: number): Promise<boolean> {
    const r = await this.query(
      `UPDATE ${this.T.kv} SET consumed_at = $3 WHERE kind = $1 AND id = $2 AND consumed_at IS NULL AND ${live(4)}`,
      [kind, id, at, this.clock()],
    );
    return r.rowCount === 1;
  }

  async deleteGrant(grantId: string): Promise<number> {
    const r = await this.query(`DELETE FROM ${this.T.kv} WHERE grant_id = $1`, [grantId]);
    return r.rowCount ?? 0;
  }

  async sweep(now: number): Promise<number> {
    const r = await this.query(`DELETE FROM ${this.T.kv} WHERE expires_at <= $1`, [now]);
    return r.rowCount ?? 0;
  }
}
