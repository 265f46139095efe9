// The receipts concern in the in-memory backend: records by reader, conversation and kind, and the
// seq of each conversation's `message.receipts` event (the store drops the one it replaces).

import type { MemoryAdapter, MemoryCore } from '../part.js';
import type { ReceiptState } from './decide.js';
import type { ReceiptEffect } from './ops.js';
import { ByRecord, type ReceiptReads, type ReceiptRecord } from './records.js';

const clone = (r: ReceiptRecord): ReceiptRecord => ({ ...r, ranges: r.ranges.map((x) => [...x] as ReceiptRecord['ranges'][number]) });

export class MemoryReceipts implements MemoryAdapter<ReceiptEffect, ReceiptState, ReceiptReads> {
  private readonly records = new ByRecord<ReceiptRecord>();
  /** Each conversation's last `message.receipts` event, by seq. */
  private readonly eventOf = new Map<string, number>();

  replaces(e: ReceiptEffect, lastSeq: number): number | undefined {
    if (e.op !== 'receipt.event') return undefined;
    const before = this.eventOf.get(e.conv);
    // The event was appended by the effect before this one: the newest seq.
    this.eventOf.set(e.conv, lastSeq);
    return before;
  }

  apply(e: ReceiptEffect): void {
    if (e.op !== 'receipt.put') return;
    this.records.set(e.record.reader, e.record.conv, e.record.kind, clone(e.record));
  }

  constructor(private readonly core: MemoryCore) {}

  // The stored records: the resolver does not change them.
  readonly state: ReceiptState = {
    receipt: (reader, conv, kind) => this.records.get(reader, conv, kind),
    createdBetween: (conv, after, before) => this.core.createdBetween(conv, after, before),
  };

  readonly reads: ReceiptReads = {
    // By reader, then kind, as the SQL backends order them: inConv gives the kinds in order and the sort is stable.
    list: async (conv) =>
      this.records
        .inConv(conv)
        .sort((a, b) => (a.reader < b.reader ? -1 : a.reader > b.reader ? 1 : 0))
        .map(clone),
  };
}
