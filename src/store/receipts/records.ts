// Receipts as the store keeps them (#28 part 1): per reader, conversation and kind (`delivered`,
// `read`) a short list of covered ranges of event sequence numbers. A message is covered when the
// seq of its `message.created` event lies in one of its reader's ranges. An attachment that resumes
// from its cursor extends one range for ever; a reader that skips ahead (a history page far back,
// an attachment started at the live head) opens another. Event seqs are global, so between two of
// a conversation's messages lie other conversations' events: two ranges whose gap holds no message
// of the conversation are joined (`bridge`, #43 part 8), so the ranges run over the conversation's
// own messages and a reader that reads them in order keeps one range, however its conversations
// interleave. So the cost is one row per reader and conversation, not one per reader and message. Pure: every backend merges with these functions.
// The receipts part (part.ts) keeps them; its readers reach them through `store.part(receiptsPart)`.

import type { Reader } from '../../protocol/types.js';

export type ReceiptKind = 'delivered' | 'read';

/** `[lo, hi, at]`: every message of the conversation with an event seq in lo..hi is covered; `at` is when the range last grew. */
export type ReceiptRange = [number, number, string];

/** One reader's ranges of one kind in one conversation. */
export interface ReceiptRecord {
  /** `agent:<id>` (a local id, or scoped for a remote agent) or `human:<id>`. */
  reader: string;
  /** Conversation key: `room:<id>`, `thread:<id>` or `dm:<id>`. */
  conv: string;
  kind: ReceiptKind;
  /** Disjoint, not adjacent, sorted by lo. */
  ranges: ReceiptRange[];
}

/** A range to add to a reader's record. */
export interface ReceiptMark {
  reader: string;
  conv: string;
  kind: ReceiptKind;
  lo: number;
  hi: number;
  at: string;
}

/** The stored key of a reader: `agent:<id>` or `human:<id>`. (Whom a request reads as is the network's: network/reached.ts, readingAs.) */
export const readerKey = (r: Reader): string => `${r.type}:${r.id}`;

/** The reader of a stored key (undefined for a key of another form). */
export function readerOf(key: string): Reader | undefined {
  const i = key.indexOf(':');
  const type = key.slice(0, i);
  if (i < 1 || (type !== 'agent' && type !== 'human')) return undefined;
  return { type, id: key.slice(i + 1) };
}

/** Most ranges kept per record: past it the oldest ones are forgotten (their messages show no receipt). */
export const MAX_RANGES = 32;

/** The key of a record. */
export const receiptKey = (r: { reader: string; conv: string; kind: ReceiptKind }): string => `${r.kind}\u0000${r.reader}\u0000${r.conv}`;

/**
 * Values by record (reader, conversation and kind) in maps by kind, conversation and reader: a
 * lookup builds no key. A broadcast's receipt batch looks up each reader's record three or four
 * times, and a `receiptKey` string each time was a third of what the batch left to the old space.
 */
export class ByRecord<V> {
  private readonly byKind: Record<ReceiptKind, Map<string, Map<string, V>>> = { delivered: new Map(), read: new Map() };
  private count = 0;

  /** Records held. */
  get size(): number {
    return this.count;
  }

  get(reader: string, conv: string, kind: ReceiptKind): V | undefined {
    return this.byKind[kind].get(conv)?.get(reader);
  }

  set(reader: string, conv: string, kind: ReceiptKind, value: V): void {
    const convs = this.byKind[kind];
    let readers = convs.get(conv);
    if (!readers) convs.set(conv, (readers = new Map()));
    const before = readers.size;
    readers.set(reader, value);
    this.count += readers.size - before;
  }

  clear(): void {
    this.byKind.delivered.clear();
    this.byKind.read.clear();
    this.count = 0;
  }

  /** Calls `fn` for each record (a callback, not an iterator: nothing is allocated per record). */
  forEach(fn: (value: V, reader: string, conv: string, kind: ReceiptKind) => void): void {
    for (const kind of KINDS) this.byKind[kind].forEach((readers, conv) => readers.forEach((v, reader) => fn(v, reader, conv, kind)));
  }

  /** The conversations with a record. */
  convs(): Set<string> {
    return new Set([...this.byKind.delivered.keys(), ...this.byKind.read.keys()]);
  }

  /** The values of one conversation's records: every reader's of each kind. */
  inConv(conv: string): V[] {
    return KINDS.flatMap((kind) => [...(this.byKind[kind].get(conv)?.values() ?? [])]);
  }
}

const KINDS: readonly ReceiptKind[] = ['delivered', 'read'];

/**
 * The ranges with lo..hi added, or undefined when they already cover it (nothing to write).
 * Overlapping and adjacent ranges join; the joined range takes `at`.
 */
export function mergeRange(ranges: readonly ReceiptRange[], lo: number, hi: number, at: string): ReceiptRange[] | undefined {
  if (!(lo <= hi) || lo < 1) return undefined;
  if (covers(ranges, lo, hi)) return undefined;
  let nlo = lo;
  let nhi = hi;
  const out: ReceiptRange[] = [];
  for (const r of ranges) {
    if (r[0] <= hi + 1 && r[1] >= lo - 1) {
      nlo = Math.min(nlo, r[0]);
      nhi = Math.max(nhi, r[1]);
    } else out.push(r);
  }
  out.push([nlo, nhi, at]);
  out.sort((a, b) => a[0] - b[0]);
  return out.length > MAX_RANGES ? out.slice(out.length - MAX_RANGES) : out;
}

/**
 * Whether a message of a conversation was created with an event seq strictly between `after` and
 * `before` (each backend reads its events and messages: ReceiptState.createdBetween).
 */
export type CreatedBetween = (after: number, before: number) => boolean;

/** Widest gap of seqs `bridge` asks about: a wider one stays a gap (the read would cost too much). */
export const MAX_BRIDGE_SEQS = 2048;

/**
 * `ranges` (as mergeRange left them) with the range holding `seq` joined to its neighbours across
 * gaps that hold no message of the conversation: the gaps are other conversations' events, and no
 * message can be created in them later (seqs only grow). The joined range takes the later `at`.
 */
export function bridge(ranges: ReceiptRange[], seq: number, createdBetween: CreatedBetween): ReceiptRange[] {
  const k = ranges.findIndex((r) => r[0] <= seq && seq <= r[1]);
  if (k < 0) return ranges;
  const out = [...ranges];
  let i = k;
  const join = (lo: number, hi: number) => {
    const [a, b] = [out[lo]!, out[hi]!];
    // biome-ignore lint/complexity/useMathMinMax: the later of two ISO times (strings), not numbers
    out.splice(lo, 2, [a[0], b[1], a[2] > b[2] ? a[2] : b[2]]);
  };
  const open = (before: ReceiptRange, after: ReceiptRange) =>
    after[0] - before[1] - 1 <= MAX_BRIDGE_SEQS && !createdBetween(before[1], after[0]);
  if (i > 0 && open(out[i - 1]!, out[i]!)) {
    join(i - 1, i);
    i--;
  }
  if (i + 1 < out.length && open(out[i]!, out[i + 1]!)) join(i, i + 1);
  return out;
}

/** Whether one of `ranges` covers all of lo..hi (a loop: a closure per call was garbage on the receipt path). */
export function covers(ranges: readonly ReceiptRange[], lo: number, hi: number): boolean {
  for (const r of ranges) if (r[0] <= lo && hi <= r[1]) return true;
  return false;
}

/** The range covering `seq`, if any. */
export function covering(ranges: readonly ReceiptRange[], seq: number): ReceiptRange | undefined {
  return ranges.find((r) => r[0] <= seq && seq <= r[1]);
}

/** What the receipts part offers to readers (`store.part(receiptsPart)`). */
export interface ReceiptReads {
  /** Every reader's records of one conversation, by reader then kind. */
  list(conv: string): Promise<ReceiptRecord[]>;
}
