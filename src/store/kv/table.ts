// The expiring key/value table's part of the store contract (#27 part 2, OAuth state in the store):
// JSON values by (kind, id) with an optional expiry, one optional secondary lookup key per row and
// an optional grant id, so the OAuth server's clients, grants, codes, tokens, sessions and keys (and
// the network uid, pairings' learned ids) live where every instance reads them. An expired row is
// never returned; `sweep` deletes expired rows (the owner of the data schedules it). Re-exported by
// ../types.js. It is not a StorePart (../part.ts): every store has it and its changes are not
// intents; this folder holds it whole, one adapter per backend beside this file.

/** One stored row. Times are milliseconds since the epoch. */
export interface KvEntry {
  kind: string;
  id: string;
  /** The value as JSON text, exactly as put. */
  value: string;
  /** When the row stops being returned (absent: never). */
  expires_at?: number;
  /** When `consume` marked it (absent: not consumed). */
  consumed_at?: number;
  /** A second key the row is found by within its kind (a session's uid, a device code's user code). */
  lookup?: string;
  /** The grant the row belongs to: `deleteGrant` deletes every row of it, of any kind. */
  grant_id?: string;
}

/** What `put` stores; a row of the same kind and id is replaced whole (consumed_at cleared). */
export type KvPut = Omit<KvEntry, 'consumed_at'>;

/** One string for a row's kind and id (a map's key). */
export const kvKey = (kind: string, id: string): string => `${kind}\u0000${id}`;

/** The expiring key/value table, shared by every instance on the store. */
export interface KvTable {
  /** Stores a row, replacing one with the same kind and id. */
  put(entry: KvPut): Promise<void>;
  /**
   * Stores rows together, as put would one by one (the last of several with one kind and id wins):
   * one statement on Postgres, one write on sqlite, for many small rows asked for at once.
   */
  putMany(entries: readonly KvPut[]): Promise<void>;
  /** Stores a row unless an unexpired one has its kind and id; returns the row stored afterwards. */
  putIfAbsent(entry: KvPut): Promise<KvEntry>;
  /** The unexpired row of this kind and id. */
  get(kind: string, id: string): Promise<KvEntry | undefined>;
  /** The unexpired row of this kind with this lookup key (the last first stored, if several). */
  find(kind: string, lookup: string): Promise<KvEntry | undefined>;
  /** Every unexpired row of a kind, in the order first stored (a replaced row keeps its place). */
  list(kind: string): Promise<KvEntry[]>;
  /** How many unexpired rows a kind has (a cap on stored rows is checked without reading them). */
  count(kind: string): Promise<number>;
  /** Every unexpired row of every kind, in the order first stored (`svc store copy`). */
  all(): Promise<KvEntry[]>;
  /** Deletes a row; false when there was none. */
  delete(kind: string, id: string): Promise<boolean>;
  /**
   * Marks an unexpired, unconsumed row consumed at `at`; false (nothing changed) when it is absent,
   * expired or consumed already. Atomic: of two concurrent calls, one gets true.
   */
  consume(kind: string, id: string, at: number): Promise<boolean>;
  /** Deletes every row of a grant, of every kind; returns how many. */
  deleteGrant(grantId: string): Promise<number>;
  /** Deletes the rows expired at `now`; returns how many. */
  sweep(now: number): Promise<number>;
}

/** Whether a row is expired at `now`. */
export function kvExpired(e: { expires_at?: number }, now: number): boolean {
  return e.expires_at !== undefined && e.expires_at <= now;
}

/**
 * A row as stored in SQL (the sqlite and Postgres backends): nullable columns, numbers possibly
 * as strings (Postgres bigint).
 */
export interface KvRow {
  kind: string;
  id: string;
  value: string;
  expires_at: number | string | null;
  consumed_at: number | string | null;
  lookup: string | null;
  grant_id: string | null;
}

/** The entry of a SQL row. */
export function kvEntryOf(r: KvRow): KvEntry {
  return {
    kind: r.kind,
    id: r.id,
    value: r.value,
    ...(r.expires_at !== null ? { expires_at: Number(r.expires_at) } : {}),
    ...(r.consumed_at !== null ? { consumed_at: Number(r.consumed_at) } : {}),
    ...(r.lookup !== null ? { lookup: r.lookup } : {}),
    ...(r.grant_id !== null ? { grant_id: r.grant_id } : {}),
  };
}
