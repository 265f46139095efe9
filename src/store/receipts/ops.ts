// The receipts concern's write intents, their outcomes and the effects they resolve to (decide.ts).

import type { ServiceEvent } from '../../protocol/types.js';
import type { ReceiptMark, ReceiptRecord } from './records.js';

/**
 * Adds ranges to readers' receipt records (records.ts), against the stored ranges. Marks already
 * covered change nothing; the outcome lists the marks that did.
 */
export interface ReceiptMarkOp {
  op: 'receipt.mark';
  marks: ReceiptMark[];
  /**
   * A `message.receipts` event (its `marks` left empty) for each conversation the marks may move:
   * one whose marks changed a record is appended with them, in the same write, in place of the one
   * appended before for that conversation (the event log keeps one per conversation, #43 part 8;
   * the one it replaces leaves a hole in the seqs, as a purge does). The others are dropped.
   */
  notices?: ReceiptNotice[];
}

/** A conversation's `message.receipts` event before the decision gives it its marks. */
export interface ReceiptNotice {
  /** Conversation key (`room:<id>`, `thread:<id>`, `dm:<id>`). */
  conv: string;
  event: ServiceEvent;
}

export type ReceiptOp = ReceiptMarkOp;

/** What a receipt.mark did: the marks that changed a record. */
export interface ReceiptMarkOutcome {
  op: 'receipt.mark';
  changed: ReceiptMark[];
}

export type ReceiptOutcome = ReceiptMarkOutcome;

/**
 * A record's ranges after a mark. `stored`: the decision found the record (Postgres then updates the
 * row it locked; a record it did not find is inserted, so another instance creating the same one
 * fails on the key and the batch is decided again on its ranges).
 */
export type ReceiptPutEffect = { op: 'receipt.put'; record: ReceiptRecord; stored?: true };

/**
 * The `message.receipts` event appended just before this effect (event_id) is now its
 * conversation's: the one noted before it is deleted from the event log. Each backend keeps the
 * note in its own table (sqlite by seq, Postgres by event id, memory by seq).
 */
export type ReceiptEventEffect = { op: 'receipt.event'; conv: string; event_id: string };

export type ReceiptEffect = ReceiptPutEffect | ReceiptEventEffect;

export const isReceiptEffect = (e: { op: string }): e is ReceiptEffect => e.op === 'receipt.put' || e.op === 'receipt.event';

// This concern's row of the store's op, outcome and effect unions (part.ts, PartTypes).
declare module '../part.js' {
  interface PartTypes {
    receipts: { op: ReceiptOp; outcome: ReceiptOutcome; effect: ReceiptEffect };
  }
}
