// The receipts concern in Postgres: its table, the records a batch reads and locks, its reads and
// the statement pieces of its effect.

import type { PgRows, PostgresAdapter } from '../part.js';
import type { ReceiptState } from './decide.js';
import type { ReceiptEffect, ReceiptMarkOp } from './ops.js';
import { receiptKey, type ReceiptKind, type ReceiptReads, type ReceiptRecord } from './records.js';

/** The table's name in the store's schema. */
const RECEIPTS_TABLE = 'receipts';

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

const recordOf = (r: Record<string, unknown>): ReceiptRecord => ({
  reader: String(r.reader),
  conv: String(r.conv),
  kind: r.kind as ReceiptKind,
  ranges: JSON.parse(String(r.ranges)) as ReceiptRecord['ranges'],
});

export const postgresReceipts: PostgresAdapter<ReceiptMarkOp, ReceiptEffect, ReceiptState, ReceiptReads> = {
  migrations: [RECEIPTS_DDL],
  ctes(mine, sql) {
    const table = sql.table(RECEIPTS_TABLE);
    // One final record per key (the CTEs of a statement cannot see each other's rows); whether it
    // was stored is the batch's first effect on it (later ones saw the earlier effect, not the row).
    const finals = new Map<string, { record: ReceiptRecord; stored: boolean }>();
    for (const e of mine) {
      const key = receiptKey(e.record);
      finals.set(key, { record: e.record, stored: finals.get(key)?.stored ?? e.stored === true });
    }
    const out: string[] = [];
    // Records not read are INSERTed: another instance creating the same one fails on the key, and
    // the batch is decided again on its ranges.
    const fresh: string[] = [];
    for (const { record: r, stored } of finals.values()) {
      const json = JSON.stringify(r.ranges);
      if (stored)
        out.push(
          `UPDATE ${table} SET ranges = ${sql.param(json)} WHERE conv = ${sql.param(r.conv)} AND reader = ${sql.param(r.reader)} AND kind = ${sql.param(r.kind)}`,
        );
      else fresh.push(sql.row([r.conv, r.reader, r.kind, json]));
    }
    if (fresh.length > 0) out.push(`INSERT INTO ${table} (conv, reader, kind, ranges) VALUES ${fresh.join(', ')}`);
    return out;
  },
  async prefetch(c, T, mine) {
    // The records the marks name, locked in one order (to avoid deadlocks).
    const keys = new Map<string, { conv: string; reader: string; kind: ReceiptKind }>();
    for (const op of mine) for (const m of op.marks) keys.set(receiptKey(m), { conv: m.conv, reader: m.reader, kind: m.kind });
    const sorted = [...keys.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, k]) => k);
    const found = new Map<string, ReceiptRecord>();
    if (sorted.length > 0) {
      const r = await c.query(
        `SELECT t.conv, t.reader, t.kind, t.ranges FROM ${T.table(RECEIPTS_TABLE)} t JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(conv, reader, kind) ` +
          'USING (conv, reader, kind) ORDER BY t.conv, t.reader, t.kind FOR UPDATE OF t',
        [sorted.map((k) => k.conv), sorted.map((k) => k.reader), sorted.map((k) => k.kind)],
      );
      for (const row of r.rows) {
        const rec = recordOf(row);
        found.set(receiptKey(rec), rec);
      }
    }
    return { receipt: (reader, conv, kind) => found.get(receiptKey({ reader, conv, kind })) };
  },
  reads: (rows: PgRows, T) => ({
    list: async (conv) =>
      (await rows(`SELECT reader, conv, kind, ranges FROM ${T.table(RECEIPTS_TABLE)} WHERE conv = $1 ORDER BY reader, kind`, [conv])).map(
        recordOf,
      ),
  }),
};
