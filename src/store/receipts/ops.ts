// The receipts concern's write intent, its outcome and the effect it resolves to (decide.ts).

import type { ReceiptMark, ReceiptRecord } from './records.js';

/**
 * Adds ranges to readers' receipt records (records.ts), against the stored ranges. Marks already
 * covered change nothing; the outcome lists the marks that did.
 */
export interface ReceiptMarkOp {
  op: 'receipt.mark';
  marks: ReceiptMark[];
}

/** What a receipt.mark did: the marks that changed a record. */
export interface ReceiptMarkOutcome {
  op: 'receipt.mark';
  changed: ReceiptMark[];
}

/**
 * A record's ranges after a mark. `stored`: the decision found the record (Postgres then updates the
 * row it locked; a record it did not find is inserted, so another instance creating the same one
 * fails on the key and the batch is decided again on its ranges).
 */
export type ReceiptEffect = { op: 'receipt.put'; record: ReceiptRecord; stored?: true };

export const isReceiptEffect = (e: { op: string }): e is ReceiptEffect => e.op === 'receipt.put';
