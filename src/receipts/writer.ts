// Receipt marks from every surface of one server (attachment ACKs, SSE writes, reads), gathered in
// memory and written in one batch per flush: one store write (one transaction), with one
// `message.receipts` event per conversation whose marks moved anything, however many readers and
// messages; the event log keeps only each conversation's last such event (the receipts part drops
// the one before). Marks are best effort: a lost flush (store down, crash) is made good by the next ACK
// or read, which covers the same messages.
// The receipts feature makes one per server and registers it (network/receipts.ts): nothing else
// reaches it. It writes the receipts part's op (src/store/receipts/); a store opened without that
// part takes no marks.

import { commit, newEvent, type NetworkContext } from '../network/context.js';
import type { Target } from '../protocol/types.js';
import type { ReceiptNotice } from '../store/receipts/ops.js';
import { receiptsPart } from '../store/receipts/part.js';
import { ByRecord, covers, mergeRange, type ReceiptKind, type ReceiptMark, type ReceiptRange } from '../store/receipts/records.js';
import type { DeliverySource, ReceiptMarks } from './marks.js';

/** How long marks gather before they are written. */
export const FLUSH_MS = 200;
/** Records whose last ranges this process remembers (to skip marks already stored). */
const KNOWN_MAX = 20_000;
/**
 * Ranges remembered per record: the newest, where the next marks land. All of a record's (up to 32,
 * not joined across gaps as the store joins them) held about 3 KiB per record, and the JS heap of
 * a soak grew with its conversations until KNOWN_MAX cleared them.
 */
const KNOWN_RANGES = 4;
/** Conversations whose target this process remembers (a thread's room and a DM's participants never change). */
const TARGETS_MAX = 20_000;

let isoMs = -1;
let isoText = '';
/**
 * A mark's time as ISO text, formatted once per millisecond: a batch marks for many readers at
 * once, and a fresh `toISOString()` each time was most of `mark`'s cost in the fan-out profile.
 */
function isoOf(ms: number): string {
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

export class ReceiptWriter implements ReceiptMarks {
  /** Each record's ranges to write. */
  private pending = new ByRecord<ReceiptRange[]>();
  /** Sources to drain into the next batch. */
  private sources: DeliverySource[] = [];
  /** Ranges this process wrote or saw stored, by record: a mark inside them needs no write. */
  private readonly known = new ByRecord<ReceiptRange[]>();
  /**
   * Each conversation's target, for its `message.receipts` event: from the marks that carry it, else
   * read once. (Reading it per conversation per flush, one after another, queued behind the sends'
   * own lookups on Postgres: a flush then took seconds under the soak, marks piled up in the heap
   * and the events fell behind.)
   */
  private readonly targets = new Map<string, Target>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Whether the store keeps receipts (it was opened with the receipts part). */
  private readonly kept: boolean;

  constructor(
    private readonly ctx: NetworkContext,
    private readonly intervalMs = FLUSH_MS,
  ) {
    this.kept = ctx.store.part(receiptsPart) !== undefined;
  }

  /** Records that `reader` has the messages of `conv` whose event seqs are lo..hi. */
  mark(reader: string, conv: string, kind: ReceiptKind, lo: number, hi: number, target?: Target): void {
    if (this.markAt(reader, conv, kind, lo, hi, Date.now(), target)) this.schedule();
  }

  /** `mark` at a given time (ms since the epoch), for a source being drained; whether it is pending. */
  markAt(reader: string, conv: string, kind: ReceiptKind, lo: number, hi: number, atMs: number, target?: Target): boolean {
    if (this.closed || !this.kept || this.ctx.config.server.receipts === false || !(lo >= 1 && hi >= lo)) return false;
    if (target && !this.targets.has(conv)) this.rememberTarget(conv, target);
    const known = this.known.get(reader, conv, kind);
    if (known && covers(known, lo, hi)) return false;
    const at = isoOf(atMs);
    const ranges = this.pending.get(reader, conv, kind);
    if (!ranges) this.pending.set(reader, conv, kind, [[lo, hi, at]]);
    else {
      const merged = mergeRange(ranges, lo, hi, at);
      if (merged) this.pending.set(reader, conv, kind, merged);
    }
    return true;
  }

  /**
   * Drains `source` into the next batch. The caller queues a source once until it is drained
   * (O(1), nothing allocated: it runs on every ACK).
   */
  queue(source: DeliverySource): void {
    if (this.closed) return;
    this.sources.push(source);
    this.schedule();
  }

  /** Whether a mark is waiting to be written. */
  get idle(): boolean {
    return this.pending.size === 0 && this.sources.length === 0 && !this.running;
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Writes what has gathered (waiting for a flush already running first). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    this.drainSources();
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new ByRecord();
    this.running = this.write(batch).finally(() => (this.running = undefined));
    await this.running;
  }

  /** Writes what is pending and takes no more marks. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    this.closed = true;
  }

  private drainSources(): void {
    if (this.sources.length === 0) return;
    const sources = this.sources;
    this.sources = [];
    const now = Date.now();
    for (const s of sources) {
      try {
        s.drain(this, now);
      } catch (err) {
        this.ctx.log('warn', 'receipts: a source of marks failed (the next ACK marks again)', { error: String(err) });
      }
    }
  }

  private async write(batch: ByRecord<ReceiptRange[]>): Promise<void> {
    const marks: ReceiptMark[] = [];
    batch.forEach((ranges, reader, conv, kind) => {
      for (const r of ranges) marks.push({ reader, conv, kind, lo: r[0], hi: r[1], at: r[2] });
    });
    try {
      // The marks and their conversations' events in one write: one transaction a flush.
      await commit(this.ctx, [{ op: 'receipt.mark', marks, notices: await this.notices(batch.convs()) }]);
    } catch (err) {
      this.ctx.log('warn', 'receipts: a batch of marks was not stored (the next ACK or read marks again)', { error: String(err) });
      return;
    }
    this.remember(batch);
  }

  private remember(batch: ByRecord<ReceiptRange[]>): void {
    if (this.known.size > KNOWN_MAX) this.known.clear();
    batch.forEach((ranges, reader, conv, kind) => {
      let cur = this.known.get(reader, conv, kind);
      for (const r of ranges) {
        const lo = r[0];
        const hi = r[1];
        const last = cur?.[cur.length - 1];
        if (last && last[0] <= lo && lo <= last[1] + 1) {
          // A reader that reads on extends its newest range: in place, so what this process keeps
          // for its readers is not made again on every batch (it outlives the batch: old space).
          if (hi > last[1]) {
            last[1] = hi;
            last[2] = r[2];
          }
          continue;
        }
        const merged = mergeRange(cur ?? [], lo, hi, r[2]);
        if (merged) cur = merged.length > KNOWN_RANGES ? merged.slice(-KNOWN_RANGES) : merged;
      }
      if (cur) this.known.set(reader, conv, kind, cur);
    });
  }

  /**
   * A `message.receipts` event for each conversation, its marks left to the store (those that
   * changed a record: store/receipts/decide.ts). A conversation whose target cannot be read gets none.
   */
  private async notices(convs: Iterable<string>): Promise<ReceiptNotice[]> {
    const list = [...convs];
    // Those not remembered are read at once (the store's lookups answer them together).
    const targets = await Promise.all(list.map((conv) => this.targetOf(conv).catch(() => undefined)));
    return list.flatMap((conv, i) => {
      const target = targets[i];
      return target ? [{ conv, event: newEvent(this.ctx, 'message.receipts', { receipts: { target, marks: [] } }) }] : [];
    });
  }

  private rememberTarget(conv: string, t: Target): void {
    if (this.targets.size >= TARGETS_MAX) this.targets.clear();
    // The shape readTarget gives (a message's thread target may also name its parent message).
    this.targets.set(
      conv,
      t.kind === 'room'
        ? { kind: 'room', room_id: t.room_id }
        : t.kind === 'thread'
          ? { kind: 'thread', room_id: t.room_id, thread_id: t.thread_id }
          : { kind: 'dm', dm_id: t.dm_id, participant_ids: [...t.participant_ids] },
    );
  }

  private async targetOf(conv: string): Promise<Target | undefined> {
    const kept = this.targets.get(conv);
    if (kept) return kept;
    const target = await this.readTarget(conv);
    if (target) this.rememberTarget(conv, target);
    return target;
  }

  private async readTarget(conv: string): Promise<Target | undefined> {
    const i = conv.indexOf(':');
    const kind = conv.slice(0, i);
    const id = conv.slice(i + 1);
    if (kind === 'room') return { kind: 'room', room_id: id };
    if (kind === 'thread') {
      const t = await this.ctx.store.getThread(id);
      return t && { kind: 'thread', room_id: t.room_id, thread_id: id };
    }
    if (kind === 'dm') {
      const d = await this.ctx.store.getDm(id);
      return d && { kind: 'dm', dm_id: id, participant_ids: d.participant_ids };
    }
    return undefined;
  }
}
