// The receipts concern's part of the resolver (intents.ts): a receipt.mark decided against the
// stored ranges, a receipt.notice (a conversation's `message.receipts` event, replacing its last),
// and the batch overlay's copy of the records its earlier effects changed.

import type { CoreView, Put } from '../part.js';
import type { ReceiptEffect, ReceiptMarkOp, ReceiptMarkOutcome, ReceiptOp, ReceiptOutcome } from './ops.js';
import { bridge, ByRecord, mergeRange, type ReceiptKind, type ReceiptMark, type ReceiptRecord } from './records.js';

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

/** Decides either op of the part. */
export function decideReceipts(core: CoreView, state: ReceiptState, op: ReceiptOp, put: Put<ReceiptEffect>): ReceiptOutcome {
  if (op.op === 'receipt.mark') return markReceipts(core, state, op, put);
  // The event, then the note that makes it its conversation's (each backend drops the one before).
  put({ op: 'event.append', event: op.event });
  put({ op: 'receipt.event', conv: op.conv, event_id: op.event.id });
  return { op: 'receipt.notice' };
}

export function markReceipts(_core: CoreView, state: ReceiptState, op: ReceiptMarkOp, put: Put<ReceiptEffect>): ReceiptMarkOutcome {
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
  return { op: 'receipt.mark', changed };
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
