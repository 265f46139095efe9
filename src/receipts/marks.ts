// Where deliveries become marks: the receipt writer (writer.ts) as the feature's sources of marks
// (an attachment's ledger, an agent's stream, reads) see it.

import type { ReceiptKind } from '../store/receipts/records.js';

/** Where deliveries become marks (the receipt writer of writer.ts). */
export interface ReceiptMarks {
  /** Records that `reader` has the messages of `conv` whose event seqs are lo..hi. */
  mark(reader: string, conv: string, kind: ReceiptKind, lo: number, hi: number): void;
  /** `mark` at a given time (ms since the epoch), for a source being drained; whether it is pending. */
  markAt(reader: string, conv: string, kind: ReceiptKind, lo: number, hi: number, atMs: number): boolean;
  /** Drains `source` into the next batch (queued once until it is drained). */
  queue(source: DeliverySource): void;
}

/** Something that has marks to give only when a batch is written (an attachment's ACKs). */
export interface DeliverySource {
  /** Marks (with `markAt`, at `atMs`: the batch's time) what gathered since the last drain. */
  drain(marks: ReceiptMarks, atMs: number): void;
}
