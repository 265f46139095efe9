// Receipts as the rest of the server reaches them: through what the receipts feature registers
// (src/receipts/feature.ts puts a `Receipts` in the network's hooks). Without that feature in the
// list `ctx.extensions.receipts` is absent: attachments, SSE streams, MCP waits and history reads then
// mark nothing, and the feature's routes are not served.

import type { Principal } from '../auth/principal.js';
import type { Message, ReceiptReader } from '../protocol/types.js';
import type { ReceiptKind } from '../store/receipts/records.js';

/** One reader's receipt of a message (GET /v1/messages/{id}/receipts). */
export interface Receipt {
  reader: ReceiptReader;
  state: 'pending' | 'delivered' | 'read';
  delivered_at?: string;
  read_at?: string;
}

/** Where deliveries become marks (the receipt writer of src/receipts/writer.ts). */
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

/** What the receipts feature offers the rest of the server. */
export interface Receipts {
  readonly marks: ReceiptMarks;
  /** A page of one conversation's history was read by `p` (as whom `as` names): marked read, in the background. */
  pageRead(p: Principal, as: string | null, messages: readonly Message[]): void;
  /** A message's receipts, for its sender and admins (what GET /v1/messages/{id}/receipts answers). */
  ofMessage(p: Principal, id: string): Promise<{ message_id: string; receipts: Receipt[] }>;
}

/** A history page, after noting it read (when receipts are kept: `ctx.extensions.receipts`) by whom the request reads as. */
export function readPage<T extends { messages: Message[] }>(receipts: Receipts | undefined, p: Principal, as: string | null, page: T): T {
  receipts?.pageRead(p, as, page.messages);
  return page;
}
