// Point lookups by primary key, coalesced: one lookup query is under way at a time (waiting for a
// pooled connection or in flight); the ids asked for meanwhile, of every kind, go to the database
// together, as one query, when it ends. Under load (every request reads its agent and its room)
// that turns two queries per request into one per round trip; each query costs a socket write and
// a wake-up on both sides, which on a busy host was the largest single item of the instance's CPU.
// Unloaded, a lookup goes at once; under load it may wait for the lookup query in flight (at most
// one round trip), as a write waits for the group commit in flight.
//
// The query has one branch per kind asked for, `id = $n` when one id of that kind is asked
// (the usual case: many requests share one room and one agent) and `id = ANY($n)` for several.
// Each shape is its own prepared statement: a branch of single ids has a generic plan as good as
// a custom one, so the database plans it once per connection; `= ANY` of a parameter is planned
// again at every execution (its generic plan cannot know the array's length), and planning the
// five-branch query every time cost the database five times its execution.
//
// Only ids asked for before the query is SENT join it, so a lookup still sees everything committed
// before it was asked (read-your-writes holds); a query in flight is never joined.
//
// Each row comes with its version, `xmin` (the transaction that wrote it: every change of a row is a
// new one), which tentative reads keep and writes check (tentative.ts).

import type pg from 'pg';
import { storeErrorOf } from './errors.js';
import { jsonColumns } from './rows.js';

type Row = Record<string, unknown>;

interface Waiter {
  resolve: (v: unknown) => void;
  reject: (err: unknown) => void;
}

/** One kind of record looked up by id: its table, the columns its record is built from, and how. */
export interface LookupKind<T> {
  table: string;
  cols: string;
  of: (row: Row) => T;
}

export interface Versioned<T> {
  record: T;
  version: string;
}

/** Most ids in one query: bounds the statement and the rows one reply carries. */
const MAX_IDS = 500;
/**
 * Queries under way at once. Two (one answered while the next is sent) measured more queries per
 * message and more database CPU for no gain in rate on a loaded two-core host.
 */
const MAX_ACTIVE = 1;

/** Lookups of every kind go in one query: a send asks for its agent and its room at once, and one round trip answers both. */
export class Lookups<M extends Record<string, unknown>> {
  private waiting = new Map<keyof M, Map<string, Waiter[]>>();
  private queued = 0;
  /** Queries waiting for a connection or in flight. */
  private active = 0;
  private readonly order: (keyof M & string)[];
  /** Statement texts by shape (per kind: absent, one id, several ids). */
  private readonly texts = new Map<string, string>();

  /** @param name the prepared statement's name */
  constructor(
    private readonly pool: pg.Pool,
    private readonly name: string,
    private readonly kinds: { [K in keyof M]: LookupKind<M[K]> },
  ) {
    this.order = Object.keys(kinds) as (keyof M & string)[];
  }

  /** The statement for ids by kind (in `order`; empty where none is asked): its name, text and values. */
  private statement(ids: string[][]): pg.QueryConfig {
    const shape = ids.map((l) => (l.length === 0 ? '0' : l.length === 1 ? '1' : 'n')).join('');
    let text = this.texts.get(shape);
    if (text === undefined) {
      let n = 0;
      const branches: string[] = [];
      this.order.forEach((k, i) => {
        if (shape[i] === '0') return;
        const cond = shape[i] === '1' ? `id = $${++n}` : `id = ANY($${++n})`;
        branches.push(
          `SELECT ${i} AS k, ${jsonColumns(this.kinds[k].cols)} AS r, xmin::text AS v FROM ${this.kinds[k].table} WHERE ${cond}`,
        );
      });
      text = branches.join(' UNION ALL ');
      this.texts.set(shape, text);
    }
    const values = ids.filter((l) => l.length > 0).map((l) => (l.length === 1 ? l[0] : l));
    return { name: `${this.name}_${shape}`, text, values };
  }

  get<K extends keyof M>(kind: K, id: string): Promise<M[K] | undefined> {
    return this.versioned(kind, id).then((f) => f?.record);
  }

  /** The record with its version (the row's `xmin`: a new one with every change of the row). */
  versioned<K extends keyof M>(kind: K, id: string): Promise<Versioned<M[K]> | undefined> {
    return new Promise((resolve, reject) => {
      let ids = this.waiting.get(kind);
      if (!ids) this.waiting.set(kind, (ids = new Map()));
      const w = { resolve: resolve as (v: unknown) => void, reject };
      const list = ids.get(id);
      if (list) list.push(w);
      else {
        ids.set(id, [w]);
        this.queued++;
      }
      this.send();
    });
  }

  private send(): void {
    if (this.active >= MAX_ACTIVE || this.queued === 0) return;
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
        for (const ids of this.take().values()) for (const ws of ids.values()) for (const w of ws) w.reject(e);
        done();
      },
    );
  }

  /** Up to MAX_IDS waiting ids, by kind. */
  private take(): Map<keyof M, Map<string, Waiter[]>> {
    if (this.queued <= MAX_IDS) {
      const all = this.waiting;
      this.waiting = new Map();
      this.queued = 0;
      return all;
    }
    const some = new Map<keyof M, Map<string, Waiter[]>>();
    let n = 0;
    for (const [kind, ids] of this.waiting) {
      const mine = new Map<string, Waiter[]>();
      some.set(kind, mine);
      for (const [id, ws] of ids) {
        if (n >= MAX_IDS) break;
        mine.set(id, ws);
        ids.delete(id);
        n++;
      }
      if (n >= MAX_IDS) break;
    }
    this.queued -= n;
    return some;
  }

  private async run(client: pg.PoolClient, batch: Map<keyof M, Map<string, Waiter[]>>): Promise<void> {
    let failed: unknown;
    try {
      const r = await client.query(this.statement(this.order.map((k) => [...(batch.get(k)?.keys() ?? [])])));
      const found = this.order.map(() => new Map<string, unknown>());
      for (const row of r.rows as { k: number; r: Row; v: string }[])
        found[row.k]!.set(String(row.r.id), { record: this.kinds[this.order[row.k]!].of(row.r), version: row.v });
      this.order.forEach((k, i) => {
        for (const [id, ws] of batch.get(k) ?? []) {
          const v = found[i]!.get(id);
          for (const w of ws) w.resolve(v);
        }
      });
    } catch (err) {
      failed = err;
      const e = storeErrorOf(err);
      for (const ids of batch.values()) for (const ws of ids.values()) for (const w of ws) w.reject(e);
    } finally {
      // A client whose query failed is discarded, as pool.query does.
      client.release(failed as Error | undefined);
    }
  }
}
