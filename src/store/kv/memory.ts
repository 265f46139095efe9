// The expiring key/value table in memory (table.ts): one map per process, rows copied in and out so
// a caller never holds the stored object.

import { type KvEntry, type KvPut, type KvTable, kvExpired, kvKey } from './table.js';

export class MemoryKv implements KvTable {
  /** Rows by kind and id, in the order first stored (a replaced row keeps its place). */
  private readonly rows = new Map<string, KvEntry>();

  constructor(private readonly clock: () => number = Date.now) {}

  private live(kind: string, id: string): KvEntry | undefined {
    const e = this.rows.get(kvKey(kind, id));
    return e && !kvExpired(e, this.clock()) ? e : undefined;
  }

  async put(entry: KvPut): Promise<void> {
    this.rows.set(kvKey(entry.kind, entry.id), { ...entry });
  }

  async putMany(entries: readonly KvPut[]): Promise<void> {
    for (const e of entries) await this.put(e);
  }

  async putIfAbsent(entry: KvPut): Promise<KvEntry> {
    const cur = this.live(entry.kind, entry.id);
    if (cur) return { ...cur };
    await this.put(entry);
    return { ...entry };
  }

  async get(kind: string, id: string): Promise<KvEntry | undefined> {
    const e = this.live(kind, id);
    return e && { ...e };
  }

  async find(kind: string, lookup: string): Promise<KvEntry | undefined> {
    let found: KvEntry | undefined;
    const now = this.clock();
    for (const e of this.rows.values()) if (e.kind === kind && e.lookup === lookup && !kvExpired(e, now)) found = e;
    return found && { ...found };
  }

  async list(kind: string): Promise<KvEntry[]> {
    const now = this.clock();
    return [...this.rows.values()].filter((e) => e.kind === kind && !kvExpired(e, now)).map((e) => ({ ...e }));
  }

  async count(kind: string): Promise<number> {
    const now = this.clock();
    let n = 0;
    for (const e of this.rows.values()) if (e.kind === kind && !kvExpired(e, now)) n++;
    return n;
  }

  async all(): Promise<KvEntry[]> {
    const now = this.clock();
    return [...this.rows.values()].filter((e) => !kvExpired(e, now)).map((e) => ({ ...e }));
  }

  async delete(kind: string, id: string): Promise<boolean> {
    return this.rows.delete(kvKey(kind, id));
  }

  async consume(kind: string, id: string, at: number): Promise<boolean> {
    const e = this.live(kind, id);
    if (!e || e.consumed_at !== undefined) return false;
    e.consumed_at = at;
    return true;
  }

  async deleteGrant(grantId: string): Promise<number> {
    let n = 0;
    for (const [k, e] of this.rows) {
      if (e.grant_id !== grantId) continue;
      this.rows.delete(k);
      n++;
    }
    return n;
  }

  async sweep(now: number): Promise<number> {
    let n = 0;
    for (const [k, e] of this.rows) {
      if (!kvExpired(e, now)) continue;
      this.rows.delete(k);
      n++;
    }
    return n;
  }
}
