// The expiring key/value table on sqlite (kv.ts): reads query the in-memory database; changes are
// effects journaled like any write (kv-apply.ts), decided on synchronous reads in the same tick as
// they are applied, so consume and insert-if-absent are atomic (this process is the only writer).

import { type KvEntry, type KvPut, type KvRow, type KvTable, kvEntryOf } from '../kv.js';
import type { Db } from './db.js';
import type { KvEffect } from './kv-apply.js';

/** What the table needs of its store: the database and a way to journal effects. */
export interface KvHost {
  readonly db: Db;
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
