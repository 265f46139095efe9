// The receipts concern in Postgres: its tables, the records a batch reads (under its conversations'
// locks; those this store remembers as current are not read again, pg-cache.ts), its reads and the
// statement pieces of its effect.

import type pg from 'pg';
import type { PgRows, PgStatement, PgTables, PostgresAdapter } from '../part.js';
import type { ReceiptState } from './decide.js';
import type { ReceiptEffect, ReceiptOp, ReceiptPutEffect } from './ops.js';
import { newVersion, ReceiptCache, type KnownRecords } from './pg-cache.js';
import {
  MAX_BRIDGE_SEQS,
  mergeRange,
  receiptKey,
  type ReceiptKind,
  type ReceiptRange,
  type ReceiptReads,
  type ReceiptRecord,
} from './records.js';

/** The table's name in the store's schema. */
const RECEIPTS_TABLE = 'receipts';
const RECEIPT_EVENTS_TABLE = 'receipt_events';
const RECEIPT_VERSIONS_TABLE = 'receipt_versions';

/**
 * The table (`S` is the schema), as migration 4 of postgres/schema.ts created it before the part
 * kept its own versions: ranges as JSON text; a message's event seq is found through messages.event_id.
 */
const RECEIPTS_DDL = `
      CREATE TABLE IF NOT EXISTS S.receipts (
        conv text NOT NULL,
        reader text NOT NULL,
        kind text NOT NULL,
        ranges text NOT NULL,
        PRIMARY KEY (conv, reader, kind)
      );
    `;

/**
 * Version 2 (#43 part 8): each conversation's last `message.receipts` event, by event id (the
 * events table's events_by_id finds it), so the next one replaces it. Events stored before it stay.
 */
const RECEIPT_EVENTS_DDL = `
      CREATE TABLE IF NOT EXISTS S.receipt_events (
        conv text PRIMARY KEY,
        event_id text NOT NULL
      );
    `;

/**
 * Version 3 (#43 part 4): each conversation's receipts version, new with each write of its records
 * (pg-cache.ts: what an instance remembers is valid while the version is the one it wrote).
 */
const RECEIPT_VERSIONS_DDL = `
      CREATE TABLE IF NOT EXISTS S.receipt_versions (
        conv text PRIMARY KEY,
        version text NOT NULL
      );
    `;

/** Each store's remembered records (by its tables: one object per open store). */
const caches = new WeakMap<PgTables, ReceiptCache>();
const cacheOf = (T: PgTables): ReceiptCache => {
  let c = caches.get(T);
  if (!c) caches.set(T, (c = new ReceiptCache()));
  return c;
};

/** What a batch's marks are decided on, and what its write leaves the store to remember. */
class PgReceiptState implements ReceiptState {
  constructor(
    readonly cache: ReceiptCache,
    /**
     * By conversation: its records current under the batch's lock, as far as it needed them (maps
     * of the batch's own: its write hands them to the cache).
     */
    readonly known: ReadonlyMap<string, KnownRecords>,
    private readonly busy: ReadonlyMap<string, boolean>,
  ) {}

  receipt(reader: string, conv: string, kind: ReceiptKind): ReceiptRecord | undefined {
    return this.known.get(conv)?.get(receiptKey({ reader, conv, kind })) ?? undefined;
  }

  // A gap the prefetch did not read counts as holding a message: it stays a gap.
  createdBetween(conv: string, after: number, before: number): boolean {
    return this.busy.get(gapKey(conv, after, before)) ?? true;
  }
}

/**
 * The first key of the conversations' advisory locks (the second is a hash of the conversation
 * key): "RCPT". Two-key advisory locks do not meet the one-key ones (the migrations' lock).
 */
const RECEIPTS_LOCK_SPACE = 0x52435054;

const recordOf = (r: Record<string, unknown>): ReceiptRecord => ({
  reader: String(r.reader),
  conv: String(r.conv),
  kind: r.kind as ReceiptKind,
  ranges: JSON.parse(String(r.ranges)) as ReceiptRecord['ranges'],
});

export const postgresReceipts: PostgresAdapter<ReceiptOp, ReceiptEffect, ReceiptState, ReceiptReads> = {
  migrations: [RECEIPTS_DDL, RECEIPT_EVENTS_DDL, RECEIPT_VERSIONS_DDL],
  ctes(all, sql, state) {
    const table = sql.table(RECEIPTS_TABLE);
    const mine = all.filter((e): e is ReceiptPutEffect => e.op === 'receipt.put');
    // One final record per key (the CTEs of a statement cannot see each other's rows); whether it
    // was stored is the batch's first effect on it (later ones saw the earlier effect, not the row).
    const finals = new Map<string, { record: ReceiptRecord; stored: boolean }>();
    for (const e of mine) {
      const key = receiptKey(e.record);
      finals.set(key, { record: e.record, stored: finals.get(key)?.stored ?? e.stored === true });
    }
    // One statement over arrays for each of: records not read, INSERTed (another instance creating
    // the same one fails on the key, and the batch is decided again on its ranges); stored ones,
    // UPDATEd. Not a CTE or a VALUES row per record: a flush to 100 readers was 100 CTEs whose
    // planning alone took 3.6 ms (bench/tools/pg-fanout-statements.ts).
    const fresh: string[][] = [[], [], [], []];
    const stored: string[][] = [[], [], [], []];
    for (const { record: r, stored: was } of finals.values())
      [r.conv, r.reader, r.kind, JSON.stringify(r.ranges)].forEach((v, i) => (was ? stored : fresh)[i]!.push(v));
    const rows = (cols: string[][]) => `unnest(${cols.map((a) => `${sql.param(a)}::text[]`).join(', ')}) AS u(conv, reader, kind, ranges)`;
    const out: string[] = [];
    if (stored[0]!.length > 0)
      out.push(
        `UPDATE ${table} t SET ranges = u.ranges FROM ${rows(stored)} WHERE t.conv = u.conv AND t.reader = u.reader AND t.kind = u.kind`,
      );
    if (fresh[0]!.length > 0) out.push(`INSERT INTO ${table} (conv, reader, kind, ranges) SELECT * FROM ${rows(fresh)}`);
    const written = [...finals.values()].map((f) => f.record);
    if (written.length > 0) out.push(versionCte(written, sql, state));
    out.push(...eventCtes(all, sql));
    return out;
  },
  async prefetch(c, T, mine) {
    const keys = new Map<string, { conv: string; reader: string; kind: ReceiptKind }>();
    for (const op of mine) for (const m of op.marks) keys.set(receiptKey(m), { conv: m.conv, reader: m.reader, kind: m.kind });
    const cache = cacheOf(T);
    const known = new Map<string, KnownRecords>();
    if (keys.size > 0) {
      const list = [...keys.values()];
      const convs = [...new Set(list.map((k) => k.conv))].sort();
      // Marks of a conversation are decided one batch at a time: each holds its conversations'
      // locks (in one order, to avoid deadlocks) until it commits, and reads the records after
      // taking them (a statement of its own: a read in the same statement would see the rows as
      // they were before the wait). One lock a conversation in memory, where locking each record
      // (FOR UPDATE) wrote every row a flush rewrites twice (bench/tools/pg-fanout-statements.ts).
      await c.query({
        name: 'receipts_lock',
        text: `SELECT pg_advisory_xact_lock(${RECEIPTS_LOCK_SPACE}, hashtext(k)) FROM unnest($1::text[]) AS k`,
        values: [convs],
      });
      // Then only the records this store does not remember as they are now.
      const versions = await c.query<{ conv: string; version: string }>({
        name: 'receipts_versions',
        text: `SELECT conv, version FROM ${T.table(RECEIPT_VERSIONS_TABLE)} WHERE conv = ANY($1::text[])`,
        values: [convs],
      });
      const version = new Map(versions.rows.map((r) => [r.conv, r.version]));
      for (const conv of convs) known.set(conv, new Map(cache.at(conv, version.get(conv)) ?? []));
      const missing = list.filter((k) => !known.get(k.conv)!.has(receiptKey(k)));
      if (missing.length > 0) {
        const r = await c.query({
          name: 'receipts_get',
          text: `SELECT t.conv, t.reader, t.kind, t.ranges FROM ${T.table(RECEIPTS_TABLE)} t JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(conv, reader, kind) USING (conv, reader, kind)`,
          values: [missing.map((k) => k.conv), missing.map((k) => k.reader), missing.map((k) => k.kind)],
        });
        for (const k of missing) known.get(k.conv)!.set(receiptKey(k), null);
        for (const row of r.rows) {
          const rec = recordOf(row);
          known.get(rec.conv)!.set(receiptKey(rec), rec);
        }
      }
    }
    const found = (key: string, conv: string) => known.get(conv)?.get(key) ?? undefined;
    return new PgReceiptState(cache, known, await busyGaps(c, T, mine, found));
  },
  reads: (rows: PgRows, T) => ({
    list: async (conv) =>
      (await rows(`SELECT reader, conv, kind, ranges FROM ${T.table(RECEIPTS_TABLE)} WHERE conv = $1 ORDER BY reader, kind`, [conv])).map(
        recordOf,
      ),
  }),
};

/**
 * The new version of each conversation whose records the batch writes. The store remembers the
 * records as the write leaves them under that version (with what the batch's prefetch knew): a
 * version nobody reads unless this statement commits. A write without a prefetch (a copy) only
 * moves the version on.
 */
function versionCte(records: readonly ReceiptRecord[], sql: PgStatement, state: ReceiptState | undefined): string {
  const version = newVersion();
  const convs = [...new Set(records.map((r) => r.conv))];
  if (state instanceof PgReceiptState)
    for (const conv of convs)
      state.cache.written(
        conv,
        version,
        state.known.get(conv),
        records.filter((r) => r.conv === conv),
      );
  return (
    `INSERT INTO ${sql.table(RECEIPT_VERSIONS_TABLE)} (conv, version) SELECT unnest(${sql.param(convs)}::text[]), ${sql.param(version)} ` +
    'ON CONFLICT (conv) DO UPDATE SET version = excluded.version'
  );
}

/**
 * A batch's `receipt.event` effects: each conversation's event noted before (the statement's
 * snapshot: not the batch's own) is deleted, and the batch's last one of each is noted. Two
 * instances noting one conversation at once both delete the same old event; the loser's new one
 * then stays unnoted (one extra event, kept like any other).
 */
function eventCtes(all: readonly ReceiptEffect[], sql: PgStatement): string[] {
  const last = new Map<string, string>();
  for (const e of all) if (e.op === 'receipt.event') last.set(e.conv, e.event_id);
  if (last.size === 0) return [];
  const notes = sql.table(RECEIPT_EVENTS_TABLE);
  const convs = `${sql.param([...last.keys()])}::text[]`;
  return [
    `DELETE FROM ${sql.table('events')} WHERE event_id IN (SELECT event_id FROM ${notes} WHERE conv = ANY(${convs}))`,
    `INSERT INTO ${notes} (conv, event_id) VALUES ${[...last].map(([c, id]) => sql.row([c, id])).join(', ')} ` +
      'ON CONFLICT (conv) DO UPDATE SET event_id = excluded.event_id',
  ];
}

const gapKey = (conv: string, after: number, before: number) => `${after} ${before} ${conv}`;

/**
 * Whether each gap the batch's marks may bridge (records.ts bridge: next to the range a mark grows)
 * holds a message of its conversation, read in one query. The marks are merged in order as the
 * decision merges them (without bridging: a gap only a bridge would bring next to a mark is not
 * read, and stays).
 */
async function busyGaps(
  c: pg.ClientBase,
  T: PgTables,
  mine: readonly ReceiptOp[],
  found: (key: string, conv: string) => ReceiptRecord | undefined,
): Promise<Map<string, boolean>> {
  const ranges = new Map<string, ReceiptRange[]>();
  const gaps = new Map<string, { conv: string; after: number; before: number }>();
  for (const op of mine) {
    for (const m of op.marks) {
      const key = receiptKey(m);
      const merged = mergeRange(ranges.get(key) ?? found(key, m.conv)?.ranges ?? [], m.lo, m.hi, m.at);
      if (!merged) continue;
      ranges.set(key, merged);
      const k = merged.findIndex((r) => r[0] <= m.hi && m.hi <= r[1]);
      for (const [x, y] of [
        [merged[k - 1], merged[k]],
        [merged[k], merged[k + 1]],
      ] as const)
        if (x && y && y[0] - x[1] - 1 <= MAX_BRIDGE_SEQS) gaps.set(gapKey(m.conv, x[1], y[0]), { conv: m.conv, after: x[1], before: y[0] });
    }
  }
  const out = new Map<string, boolean>();
  if (gaps.size === 0) return out;
  const list = [...gaps.values()];
  const r = await c.query(
    // A seq not committed yet may still be a message's (seqs commit in order: below the newest
    // committed one every seq is final). The gap's events are read first (OFFSET 0 keeps the
    // planner from flattening them into a walk of every message of the conversation, a cost that
    // grows with it; sqlite had that plan: receipts/sqlite.ts).
    `SELECT g.i FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS g(conv, after, before, i) ` +
      `WHERE g.before - 1 > (SELECT coalesce(max(seq), 0) FROM ${T.table('events')}) OR EXISTS (` +
      `SELECT 1 FROM (SELECT e.message_id FROM ${T.table('events')} e WHERE e.seq > g.after AND e.seq < g.before AND e.message_id IS NOT NULL OFFSET 0) e ` +
      `JOIN ${T.messages} m ON m.id = e.message_id WHERE m.conv = g.conv)`,
    [list.map((g) => g.conv), list.map((g) => g.after), list.map((g) => g.before)],
  );
  const busy = new Set(r.rows.map((row) => Number(row.i) - 1));
  list.forEach((g, i) => out.set(gapKey(g.conv, g.after, g.before), busy.has(i)));
  return out;
}
