// A message's receipts from its readers' records: pure, so the rule is tested with exact values.

import type { Receipt } from '../protocol/types.js';
import { covering, readerOf, type ReceiptRecord } from '../store/receipts/records.js';

export type { Receipt };

/**
 * Each expected reader (in order) and then every other reader with a mark covering `seq`, the
 * sender excepted. A read implies delivery: a reader who read a message it was never pushed
 * (history, `svc read`) shows delivered at the time it read. Times are when the covering range
 * last grew (an upper bound for older messages of the range).
 */
export function receiptsOf(seq: number, expected: readonly string[], records: readonly ReceiptRecord[], sender: string): Receipt[] {
  const marks = new Map<string, { delivered?: string; read?: string }>();
  for (const r of records) {
    const hit = covering(r.ranges, seq);
    if (!hit) continue;
    const m = marks.get(r.reader) ?? {};
    m[r.kind] = hit[2];
    marks.set(r.reader, m);
  }
  const order = [...new Set([...expected, ...marks.keys()])].filter((k) => k !== sender);
  const out: Receipt[] = [];
  for (const key of order) {
    const reader = readerOf(key);
    if (!reader) continue;
    const m = marks.get(key) ?? {};
    // A read implies delivery no later than the read. The marks' times are when their ranges last
    // grew, so an ACK that arrives after the read (a runtime acknowledging late) would otherwise
    // show a delivery after the read: the read's time bounds it.
    const delivered = m.read !== undefined && (m.delivered === undefined || m.delivered > m.read) ? m.read : m.delivered;
    out.push({
      reader,
      state: m.read ? 'read' : delivered ? 'delivered' : 'pending',
      ...(delivered ? { delivered_at: delivered } : {}),
      ...(m.read ? { read_at: m.read } : {}),
    });
  }
  return out;
}
