// The expiring key/value table on sqlite (table.ts): its table, its journaled effects and the
// table over them. Reads query the in-memory database; changes are effects journaled like any
// write, decided on synchronous reads in the same tick as they are applied, so consume and
// insert-if-absent are atomic (this process is the only writer). The journal replays them through
// sqlite/apply.ts, which hands each to `applyKv`.

import type { SqlValue } from 'sql.js';
import type { SqlRun } from '../part.js';
import { type KvEntry, type KvPut, type KvRow, type KvTable, kvEntryOf } from './table.js';

/**
 * The table, as migration 11 of sqlite/schema.ts made it (that migration's `sql` is this text).
 * Times are milliseconds since the epoch; rows are found by (kind, id), by (kind, lookup), by grant.
 */
export const KV_SQLITE_DDL = `
      CREATE TABLE IF NOT EXISTS kv (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        value TEXT NOT NULL,
        expires_at INTEGER,
        consumed_at INTEGER,
        lookup TEXT,
        grant_id TEXT,
        PRIMARY KEY (kind, id)
      );
      CREATE INDEX IF NOT EXISTS kv_by_lookup ON kv (kind, lookup) WHERE lookup IS NOT NULL;
      CREATE INDEX IF NOT EXISTS kv_by_grant ON kv (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX IF NOT EXISTS kv_by_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
    `;

/**
 * The table's journaled effects. Each carries every time it depends on, so a replay deletes and
 * marks exactly what the live write did.
 */
export type KvEffect =
  | { op: 'kv.put'; entry: KvPut }
  | { op: 'kv.delete'; kind: string; id: string }
  | { op: 'kv.consume'; kind: string; id: string; at: number }
  | { op: 'kv.delete_grant'; grant_id: string }
  | { op: 'kv.sweep'; now: number };

/** Applies one kv effect inside the caller's transaction (live writes, replay and checkpoints alike). */
export function applyKv(run: SqlRun, op: KvEffect): void {
  switch (op.op) {
    case 'kv.put': {
      const e = op.entry;
      run(
        'INSERT INTO kv (kind, id, value, expires_at, consumed_at, lookup, grant_id) VALUES (?, ?, ?, ?, NULL, ?, ?) ' +
          'ON CONFLICT (kind, id) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, consumed_at = NULL, ' +
          'lookup = excluded.lookup, grant_id = excluded.grant_id',
        [e.kind, e.id, e.value, e.expires_at ?? null, e.lookup ?? null, e.grant_id ?? null],
      );
      break;
    }
    case 'kv.delete':
      run('DELETE FROM kv WHERE kind = ? AND id = ?', [op.kind, op.id]);
      break;
    case 'kv.consume':
      run('UPDATE kv SET consumed_at = ? WHERE kind = ? AND id = ? AND consumed_at IS NULL', [op.at, op.kind, op.id]);
      break;
    case 'kv.delete_grant':
      run('DELETE FROM kv WHERE grant_id = ?', [op.grant_id]);
      break;
    case 'kv.sweep':
      run('DELETE FROM kv WHERE expires_at <= ?', [op.now]);
      break;
  }
}

/** The effects that store copied rows as they were (`svc store copy` into sqlite), marks included. */
export function kvCopyEffects(entries: readonly KvEntry[]): KvEffect[] {
  return entries.flatMap(({ consumed_at, ...entry }) => [
    { op: 'kv.put' as const, entry },
    ...(consumed_at !== undefined ? [{ op: 'kv.consume' as const, kind: entry.kind, id: entry.id, at: consumed_at }] : []),
  ]);
}

/** What the table needs of its store: synchronous reads and a way to journal effects. */
export interface KvHost {
  readonly db: {
    one(sql: string, params?: SqlValue[]): SqlValue[] | undefined;
    all(sql: string, params?: SqlValue[]): SqlValue[][];
  };
  /** Journals and applies effects; the application happens before the call returns its promise. */
  writeEffects(effects: KvEffect[]): Promise<void>;
}

const COLUMNS = 'kind, id, value, expires_at, consumed_at, lookup, grant_id';
const LIVE = '(expires_at IS NULL OR expires_at > ?)';

const entryOf = (r: unknown[]): KvEntry =>
  kvEntryOf({
    kind: r[0] as string,
    id: r[1] as string,
    value: r[2] as string,
    expires_at: r[3] as number | null,
    consumed_at: r[4] as number | null,
    lookup: r[5] as string | null,
    grant_id: r[6] as string | null,
  } satisfies KvRow);

export class SqliteKv implements KvTable {
  constructor(
    private readonly host: KvHost,
    private readonly clock: () => number = Date.now,
  ) {}

  private row(kind: string, id: string): KvEntry | undefined {
    const r = this.host.db.one(`SELECT ${COLUMNS} FROM kv WHERE kind = ? AND id = ? AND ${LIVE}`, [kind, id, this.clock()]);
    return r && entryOf(r);
  }

  put(entry: KvPut): Promise<void> {
    return this.host.writeEffects([{ op: 'kv.put', entry }]);
  }

  async putMany(entries: readonly KvPut[]): Promise<void> {
    if (entries.length > 0) await this.host.writeEffects(entries.map((entry) => ({ op: 'kv.put', entry })));
  }

  async putIfAbsent(entry: KvPut): Promise<KvEntry> {
    const cur = this.row(entry.kind, entry.id);
    if (cur) return cur;
    await this.host.writeEffects([{ op: 'kv.put', entry }]);
    return { ...entry };
  }

  async get(kind: string, id: string): Promise<KvEntry | undefined> {
    return this.row(kind, id);
  }

  async find(kind: string, lookup: string): Promise<KvEntry | undefined> {
    const r = this.host.db.one(`SELECT ${COLUMNS} FROM kv WHERE kind = ? AND lookup = ? AND ${LIVE} ORDER BY rowid DESC LIMIT 1`, [
      kind,
      lookup,
      this.clock(),
    ]);
    return r && entryOf(r);
  }

  async list(kind: string): Promise<KvEntry[]> {
    return this.host.db.all(`SELECT ${COLUMNS} FROM kv WHERE kind = ? AND ${LIVE} ORDER BY rowid`, [kind, this.clock()]).map(entryOf);
  }

  async count(kind: string): Promise<number> {
    return Number(this.host.db.one(`SELECT COUNT(*) FROM kv WHERE kind = ? AND ${LIVE}`, [kind, this.clock()])?.[0] ?? 0);
  }

  async all(): Promise<KvEntry[]> {
    return this.host.db.all(`SELECT ${COLUMNS} FROM kv WHERE ${LIVE} ORDER BY rowid`, [this.clock()]).map(entryOf);
  }

  async delete(kind: string, id: string): Promise<boolean> {
    if (!this.host.db.one('SELECT 1 FROM kv WHERE kind = ? AND id = ?', [kind, id])) return false;
    await this.host.writeEffects([{ op: 'kv.delete', kind, id }]);
    return true;
  }

  async consume(kind: string, id: string, at: number): Promise<boolean> {
    const cur = this.row(kind, id);
    if (!cur || cur.consumed_at !== undefined) return false;
    await this.host.writeEffects([{ op: 'kv.consume', kind, id, at }]);
    return true;
  }

  async deleteGrant(grantId: string): Promise<number> {
    const n = Number(this.host.db.one('SELECT count(*) FROM kv WHERE grant_id = ?', [grantId])?.[0] ?? 0);
    if (n > 0) await this.host.writeEffects([{ op: 'kv.delete_grant', grant_id: grantId }]);
    return n;
  }

  async sweep(now: number): Promise<number> {
    const n = Number(this.host.db.one('SELECT count(*) FROM kv WHERE expires_at <= ?', [now])?.[0] ?? 0);
    if (n > 0) await this.host.writeEffects([{ op: 'kv.sweep', now }]);
    return n;
  }
}
