// Where deliveries become marks: the receipt writer (writer.ts) as the feature's sources of marks
// (an attachment's ledger, an agent's stream, reads) see it.

import type { Target } from '../protocol/types.js';
import type { ReceiptKind } from '../store/receipts/records.js';

/** Where deliveries become marks (the receipt writer of writer.ts). */
export interface ReceiptMarks {
  /**
   * Records that `reader` has the messages of `conv` whose event seqs are lo..hi. `target`: the
   * conversation's, when the caller has it (its `message.receipts` event names it; else the writer
   * reads it from the store).
   */
  mark(reader: string, conv: string, kind: ReceiptKind, lo: number, hi: number, target?: Target): void;
  /** `mark` at a given time (ms since the epoch), for a source being drained; whether it is pending. */
  markAt(reader: string, conv: string, kind: ReceiptKind, lo: number, hi: number, atMs: number, target?: Target): boolean;
  /** Drains `source` into the next batch (queued once until it is drained). */
  queue(source: DeliverySource): void;
}

/** Something that has marks to give only when a batch is written (an attachment's ACKs). */
export interface DeliverySource {
  /** Marks (with `markAt`, at `atMs`: the batch's time) what gathered since the last drain. */
  drain(marks: ReceiptMarks, atMs: number): void;
}
