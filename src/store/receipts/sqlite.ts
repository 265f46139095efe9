// The receipts concern in sqlite: its tables, its SQL and how its effects are applied.

import type { SqlAll, SqliteAdapter } from '../part.js';
import { COUNT_DROPPED_EVENTS } from '../sqlite/retention.js';
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

/**
 * Version 2 (#43 part 8): each conversation's last `message.receipts` event, by seq, so the next
 * one replaces it. Events stored before it stay (a store that ran with receipts keeps what it had;
 * each conversation's next event starts the replacing).
 */
const RECEIPT_EVENTS_DDL = `
      CREATE TABLE IF NOT EXISTS receipt_events (
        conv TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) WITHOUT ROWID;
    `;

/** Whether a message of conversation ?3 was created with an event seq strictly between ?1 and ?2. */
export const GAP_HOLDS_MESSAGE =
  'SELECT 1 FROM events e CROSS JOIN messages m ON m.id = e.message_id WHERE e.seq > ? AND e.seq < ? AND m.conv = ? LIMIT 1';

const rangesOf = (v: unknown) => JSON.parse(v as string) as ReceiptRecord['ranges'];

export const sqliteReceipts: SqliteAdapter<ReceiptEffect, ReceiptState, ReceiptReads> = {
  migrations: [RECEIPTS_DDL, RECEIPT_EVENTS_DDL],
  apply(run, e) {
    if (e.op === 'receipt.event') {
      // The event was appended by the effect just before this one (decide.ts): the newest seq. The
      // one noted before goes (counted as purged, so the store's event count stays true).
      run('DELETE FROM events WHERE seq = (SELECT seq FROM receipt_events WHERE conv = ?)', [e.conv]);
      run(COUNT_DROPPED_EVENTS);
      run(
        'INSERT INTO receipt_events (conv, seq) VALUES (?, (SELECT max(seq) FROM events)) ON CONFLICT (conv) DO UPDATE SET seq = excluded.seq',
        [e.conv],
      );
      return;
    }
    const r = e.record;
    run(
      'INSERT INTO receipts (conv, reader, kind, ranges) VALUES (?, ?, ?, ?) ON CONFLICT (conv, reader, kind) DO UPDATE SET ranges = excluded.ranges',
      [r.conv, r.reader, r.kind, JSON.stringify(r.ranges)],
    );
  },
  state: (all) => ({
    createdBetween(conv, after, before) {
      // A seq not given yet may still be a message's. Else the gap's events (bridge bounds its
      // width), each message's through its id: a message's events carry message_id (frame.ts),
      // as the core's messageSeqs reads them. CROSS JOIN keeps the gap's events the outer loop:
      // left to itself the planner walked every message of the conversation, a read that grew
      // with it (a 30-minute soak's sends slowed from 11 to 68 ms at the p99 by minute 15).
      const [last] = all('SELECT coalesce(max(seq), 0) FROM events', []);
      if (before - 1 > Number(last?.[0] ?? 0)) return true;
      return all(GAP_HOLDS_MESSAGE, [after, before, conv]).length > 0;
    },
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
