// The receipts concern as one store part (part.ts): its op, its effect, and its adapters.

import type { StorePart } from '../part.js';
import { decideReceipts, ReceiptOverlay, type ReceiptState } from './decide.js';
import { MemoryReceipts } from './memory.js';
import { isReceiptEffect, type ReceiptEffect, type ReceiptOp, type ReceiptOutcome } from './ops.js';
import { postgresReceipts } from './postgres.js';
import type { ReceiptReads } from './records.js';
import { sqliteReceipts } from './sqlite.js';

export const receiptsPart: StorePart<ReceiptOp, ReceiptOutcome, ReceiptEffect, ReceiptState, ReceiptReads> = {
  name: 'receipts',
  ops: ['receipt.mark'],
  owns: isReceiptEffect,
  // Marks name conversations and event seqs, not stored messages: nothing of the core to read.
  needs: () => ({}),
  decide: decideReceipts,
  overlay: (base) => new ReceiptOverlay(base),
  memory: (core) => new MemoryReceipts(core),
  sqlite: sqliteReceipts,
  postgres: postgresReceipts,
  copy: {
    // Every copied conversation's records: their ranges are event seqs, which the copy keeps. (Which
    // `message.receipts` event is a conversation's last is not carried: the target's next one of a
    // conversation leaves the copied one in place, one event per conversation at most.)
    rest: async (reads, convs) => {
      const out: ReceiptEffect[] = [];
      for (const conv of convs) for (const record of await reads.list(conv)) out.push({ op: 'receipt.put', record });
      return out;
    },
  },
};
