// The receipts concern's part of the resolver (intents.ts): a receipt.mark decided against the
// stored ranges, with each conversation's `message.receipts` event (replacing its last) when its
// marks moved, and the batch overlay's copy of the records its earlier effects changed.

import type { ReceiptsChange } from '../../protocol/types.js';
import type { CoreView, Put } from '../part.js';
import type { ReceiptEffect, ReceiptMarkOutcome, ReceiptNotice, ReceiptOp } from './ops.js';
import { bridge, ByRecord, mergeRange, readerOf, type ReceiptKind, type ReceiptMark, type ReceiptRecord } from './records.js';

/** What a receipt.mark is decided on. */
export interface ReceiptState {
  /** A reader's record of one kind in one conversation. */
  receipt(reader: string, conv: string, kind: ReceiptKind): ReceiptRecord | undefined;
  /**
   * Whether a message of `conv` was created with an event seq strictly between `after` and
   * `before` (records.ts bridge); true when the backend cannot tell (the gap then stays).
   */
  createdBetween(conv: string, after: number, before: number): boolean;
}

export function decideReceipts(_core: CoreView, state: ReceiptState, op: ReceiptOp, put: Put<ReceiptEffect>): ReceiptMarkOutcome {
  const changed: ReceiptMark[] = [];
  for (const m of op.marks) {
    const cur = state.receipt(m.reader, m.conv, m.kind);
    const merged = mergeRange(cur?.ranges ?? [], m.lo, m.hi, m.at);
    if (!merged) continue;
    // Across the gaps that hold none of the conversation's messages: one range for a reader that reads on.
    const ranges = merged.length > 1 ? bridge(merged, m.hi, (a, b) => state.createdBetween(m.conv, a, b)) : merged;
    const record = { reader: m.reader, conv: m.conv, kind: m.kind, ranges };
    put(cur ? { op: 'receipt.put', record, stored: true } : { op: 'receipt.put', record });
    changed.push(m);
  }
  if (op.notices && changed.length > 0) notify(op.notices, changed, put);
  return { op: 'receipt.mark', changed };
}

/**
 * Appends the notice of each conversation whose marks changed a record, with each reader's
 * furthest mark of each kind; after each, the note that makes it its conversation's (each backend
 * drops the one before).
 */
function notify(notices: readonly ReceiptNotice[], changed: readonly ReceiptMark[], put: Put<ReceiptEffect>): void {
  const furthest = new ByRecord<ReceiptsChange['marks'][number]>();
  for (const m of changed) {
    const cur = furthest.get(m.reader, m.conv, m.kind);
    if (cur) {
      if (cur.up_to_seq < m.hi) furthest.set(m.reader, m.conv, m.kind, { ...cur, up_to_seq: m.hi, at: m.at });
      continue;
    }
    const reader = readerOf(m.reader);
    if (reader) furthest.set(m.reader, m.conv, m.kind, { reader, kind: m.kind, up_to_seq: m.hi, at: m.at });
  }
  for (const n of notices) {
    const marks = furthest.inConv(n.conv);
    if (marks.length === 0 || !n.event.receipts) continue;
    const event = { ...n.event, receipts: { target: n.event.receipts.target, marks } };
    put({ op: 'event.append', event });
    put({ op: 'receipt.event', conv: n.conv, event_id: event.id });
  }
}

/** The records a batch's earlier effects changed, laid over the base state. */
export class ReceiptOverlay implements ReceiptState {
  private changed: ByRecord<ReceiptRecord> | undefined;

  constructor(private readonly base: ReceiptState) {}

  note(e: ReceiptEffect): void {
    if (e.op !== 'receipt.put') return;
    (this.changed ??= new ByRecord()).set(e.record.reader, e.record.conv, e.record.kind, e.record);
  }

  createdBetween(conv: string, after: number, before: number): boolean {
    // The batch's own messages come after every seq a mark names: the stored ones answer.
    return this.base.createdBetween(conv, after, before);
  }

  receipt(reader: string, conv: string, kind: ReceiptKind): ReceiptRecord | undefined {
    return this.changed?.get(reader, conv, kind) ?? this.base.receipt(reader, conv, kind);
  }
}
