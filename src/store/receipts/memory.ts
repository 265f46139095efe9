// The receipts concern in the in-memory backend: records by key, and the keys of each conversation.

import type { MemoryAdapter } from '../part.js';
import type { ReceiptState } from './decide.js';
import type { ReceiptEffect } from './ops.js';
import { receiptKey, type ReceiptReads, type ReceiptRecord } from './records.js';

const clone = (r: ReceiptRecord): ReceiptRecord => ({ ...r, ranges: r.ranges.map((x) => [...x] as ReceiptRecord['ranges'][number]) });

export class MemoryReceipts implements MemoryAdapter<ReceiptEffect, ReceiptState, ReceiptReads> {
  private readonly byKey = new Map<string, ReceiptRecord>();
  private readonly byConv = new Map<string, Set<string>>();

  apply(e: ReceiptEffect): void {
    const key = receiptKey(e.record);
    this.byKey.set(key, clone(e.record));
    let keys = this.byConv.get(e.record.conv);
    if (!keys) this.byConv.set(e.record.conv, (keys = new Set()));
    keys.add(key);
  }

  // The stored records: the resolver does not change them.
  readonly state: ReceiptState = { receipt: (reader, conv, kind) => this.byKey.get(receiptKey({ reader, conv, kind })) };

  readonly reads: ReceiptReads = {
    list: async (conv) => [...(this.byConv.get(conv) ?? [])].map((k) => clone(this.byKey.get(k)!)),
  };
}
