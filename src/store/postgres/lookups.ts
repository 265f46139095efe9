// Point lookups by primary key, coalesced: one query of a kind is under way at a time (waiting
// for a pooled connection or in flight); the ids asked for meanwhile go to the database together,
// as one `id = ANY($1)` query, when it ends. Under load (every request reads its agent and its
// room) that turns one query per request into one per round trip; each query costs a socket write
// and a wake-up on both sides, which on a busy host was the largest single item of the instance's
// CPU. Unloaded, a lookup goes at once, as before; under load it may wait for the query of its
// kind in flight (at most one round trip), as a write waits for the group commit in flight.
//
// Only ids asked for before the query is SENT join it, so a lookup still sees everything committed
// before it was asked (read-your-writes holds); a query in flight is never joined.

import type pg from 'pg';
import { storeErrorOf } from './errors.js';

type Row = Record<string, unknown>;

interface Waiter<T> {
  resolve: (v: T | undefined) => void;
  reject: (err: unknown) => void;
}

/** Most ids in one query: bounds the statement and the rows one reply carries. */
const MAX_IDS = 500;
/**
 * Queries of one kind under way at once. Two (one answered while the next is sent) measured more
 * queries per message and more database CPU for no gain in rate on a loaded two-core host.
 */
const MAX_ACTIVE = 1;

export class Lookup<T> {
  private waiting = new Map<string, Waiter<T>[]>();
  /** Queries waiting for a connection or in flight. */
  private active = 0;

  /**
   * @param text a query with `$1` the text[] of ids, returning rows with the `key` column
   * @param name its prepared statement name
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly name: string,
    private readonly text: string,
    private readonly key: string,
    private readonly of: (row: Row) => T,
  ) {}

  get(id: string): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(id);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(id, [{ resolve, reject }]);
      this.send();
    });
  }

  private send(): void {
    if (this.active >= MAX_ACTIVE || this.waiting.size === 0) return;
    this.active++;
    const done = () => {
      this.active--;
      this.send();
    };
    this.pool.connect().then(
      // The ids are taken when the connection comes: those asked for while it was awaited join.
      (client) => void this.run(client, this.take()).finally(done),
      (err: unknown) => {
        const e = storeErrorOf(err);
        for (const ws of this.take().values()) for (const w of ws) w.reject(e);
        done();
      },
    );
  }

  private take(): Map<string, Waiter<T>[]> {
    if (this.waiting.size <= MAX_IDS) {
      const all = this.waiting;
      this.waiting = new Map();
      return all;
    }
    const some = new Map<string, Waiter<T>[]>();
    for (const [id, ws] of this.waiting) {
      if (some.size >= MAX_IDS) break;
      some.set(id, ws);
      this.waiting.delete(id);
    }
    return some;
  }

  private async run(client: pg.PoolClient, batch: Map<string, Waiter<T>[]>): Promise<void> {
    let failed: unknown;
    try {
      const r = await client.query({ name: this.name, text: this.text, values: [[...batch.keys()]] });
      const found = new Map<string, T>();
      for (const row of r.rows as Row[]) found.set(String(row[this.key]), this.of(row));
      for (const [id, ws] of batch) {
        const v = found.get(id);
        for (const w of ws) w.resolve(v);
      }
    } catch (err) {
      failed = err;
      const e = storeErrorOf(err);
      for (const ws of batch.values()) for (const w of ws) w.reject(e);
    } finally {
      // A client whose query failed is discarded, as pool.query does.
      client.release(failed as Error | undefined);
    }
  }
}
