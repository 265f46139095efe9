// The receipts concern in sqlite: its table, its SQL and how its effect is applied.

import type { SqlAll, SqliteAdapter } from '../part.js';
import type { ReceiptState } from './decide.js';
import type { ReceiptEffect } from './ops.js';
import type { ReceiptKind, ReceiptReads, ReceiptRecord } from './records.js';

/**
 * The table, as migration 7 of sqlite/schema.ts created it before the part kept its own versions
 * (that migration's index of events by message stays there: the core's messageSeqs reads it).
 */
const RECEIPTS_DDL = `
      CREATE TABLE IF NOT EXISTS receipts (
        conv TEXT NOT NULL,
        reader TEXT NOT NULL,
        kind TEXT NOT NULL,
        ranges TEXT NOT NULL,
        PRIMARY KEY (conv, reader, kind)
      ) WITHOUT ROWID;
    `;

const rangesOf = (v: unknown) => JSON.parse(v as string) as ReceiptRecord['ranges'];

export const sqliteReceipts: SqliteAdapter<ReceiptEffect, ReceiptState, ReceiptReads> = {
  migrations: [RECEIPTS_DDL],
  apply(run, e) {
    const r = e.record;
    run(
      'INSERT INTO receipts (conv, reader, kind, ranges) VALUES (?, ?, ?, ?) ON CONFLICT (conv, reader, kind) DO UPDATE SET ranges = excluded.ranges',
      [r.conv, r.reader, r.kind, JSON.stringify(r.ranges)],
    );
  },
  state: (all) => ({
    receipt(reader, conv, kind) {
      const [r] = all('SELECT ranges FROM receipts WHERE conv = ? AND reader = ? AND kind = ?', [conv, reader, kind]);
      return r && { reader, conv, kind, ranges: rangesOf(r[0]) };
    },
  }),
  reads: (all: SqlAll) => ({
    list: async (conv) =>
      all('SELECT reader, kind, ranges FROM receipts WHERE conv = ? ORDER BY reader, kind', [conv]).map((r) => ({
        reader: r[0] as string,
        conv,
        kind: r[1] as ReceiptKind,
        ranges: rangesOf(r[2]),
      })),
  }),
};
