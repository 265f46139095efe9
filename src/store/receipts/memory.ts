// The receipts concern in the in-memory backend: records by key, the keys of each conversation, and
// the seq of each conversation's `message.receipts` event (the store drops the one it replaces).

import type { MemoryAdapter, MemoryCore } from '../part.js';
import type { ReceiptState } from './decide.js';
import type { ReceiptEffect } from './ops.js';
import { receiptKey, type ReceiptReads, type ReceiptRecord } from './records.js';

const clone = (r: ReceiptRecord): ReceiptRecord => ({ ...r, ranges: r.ranges.map((x) => [...x] as ReceiptRecord['ranges'][number]) });

export class MemoryReceipts implements MemoryAdapter<ReceiptEffect, ReceiptState, ReceiptReads> {
  private readonly byKey = new Map<string, ReceiptRecord>();
  private readonly byConv = new Map<string, Set<string>>();
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
    const key = receiptKey(e.record);
    this.byKey.set(key, clone(e.record));
    let keys = this.byConv.get(e.record.conv);
    if (!keys) this.byConv.set(e.record.conv, (keys = new Set()));
    keys.add(key);
  }

  constructor(private readonly core: MemoryCore) {}

  // The stored records: the resolver does not change them.
  readonly state: ReceiptState = {
    receipt: (reader, conv, kind) => this.byKey.get(receiptKey({ reader, conv, kind })),
    createdBetween: (conv, after, before) => this.core.createdBetween(conv, after, before),
  };

  readonly reads: ReceiptReads = {
    list: async (conv) => [...(this.byConv.get(conv) ?? [])].map((k) => clone(this.byKey.get(k)!)),
  };
}
