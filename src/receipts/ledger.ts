// What an attachment's ACKs say about delivery: the message events it was sent,
// in order, until the runtime acknowledges them. The attachment's feed has no gap from its start
// cursor, so an ACK covers every message of each conversation it was sent from that start on (or
// from when the agent joined the room, when that happened during the attachment): one range per
// conversation, extended by each ACK, not one mark per message.
//
// An ACK only notes the highest cursor (every agent ACKs once per turn of its runtime, so this is
// the fan-out's hottest receipt path): the receipt writer asks the ledger for its ranges in its
// batch, every 200 ms, off the ACK path. Nothing is lost by waiting: the writer holds the ledger
// until it has drained it, even when the attachment closed in between. A mark carries the time of
// its batch (at most 200 ms after the ACK). The attachment (src/live/attach/session.ts) reaches it
// as `AttachmentDeliveries` (network/receipts.ts), made by the feature.

import type { AttachmentDeliveries } from '../network/reached.js';
import type { Target } from '../protocol/types.js';
import { convKeyOf } from '../store/types.js';
import type { DeliverySource, ReceiptMarks } from './marks.js';

/** Most unacknowledged message events remembered; older ones are still covered by a later ACK in their conversation. */
const MAX_UNACKED = 4096;
const FIRST_CAPACITY = 8;

/** One conversation's range while a drain walks the acknowledged events. */
interface Run {
  conv: string;
  target: Target;
  /** 0 until the run has its first event. */
  lo: number;
  hi: number;
}

export class DeliveryLedger implements DeliverySource, AttachmentDeliveries {
  /**
   * Sent message events, a ring: seqs[i] and targets[i], oldest at `head`, `count` of them. A plain
   * array (V8 keeps its numbers unboxed): a Float64Array and its ArrayBuffer were about 250 bytes
   * more on each of ten thousand attachments.
   */
  private seqs: number[] = [];
  private targets: (Target | undefined)[] = [];
  private head = 0;
  private count = 0;
  /** The highest cursor acknowledged (0: none). */
  private ackedTo = 0;
  /** Whether the writer holds this ledger for its next batch. */
  private queued = false;
  /** Rooms the agent was added to during this attachment, with the seqs of those changes, oldest first. */
  private joined: Map<string, number[]> | undefined;
  private readonly reader: string;
  /** The run of a drain's first conversation (drain). */
  private first: Run | undefined;

  constructor(
    /** Where the marks go (the feature's writer). */
    private readonly writer: ReceiptMarks,
    agentId: string,
    /** The cursor the attachment started after. */
    private readonly start: number,
  ) {
    this.reader = `agent:${agentId}`;
  }

  /** The agent was added to a room at `seq`: its earlier messages were never sent to this attachment. */
  joinedRoom(roomId: string, seq: number): void {
    this.joined ??= new Map();
    const seqs = this.joined.get(roomId);
    if (seqs) seqs.push(seq);
    else this.joined.set(roomId, [seq]);
  }

  /** A message event was sent to the runtime. */
  sent(seq: number, target: Target): void {
    if (this.count === this.seqs.length) {
      if (this.count >= MAX_UNACKED) {
        // The oldest is forgotten; a later ACK in its conversation still covers it.
        this.head = (this.head + 1) % this.count;
        this.count--;
      } else this.grow();
    }
    const i = (this.head + this.count) % this.seqs.length;
    this.seqs[i] = seq;
    this.targets[i] = target;
    this.count++;
  }

  /** The runtime acknowledged everything up to `cursor`: those messages are delivered (written in the writer's next batch). */
  ackUpTo(cursor: number): void {
    if (cursor <= this.ackedTo) return;
    this.ackedTo = cursor;
    if (!this.queued) {
      this.queued = true;
      this.writer.queue(this);
    }
  }

  /** The writer's batch: marks what the ACKs since the last one covered, as of `at`. */
  drain(w: ReceiptMarks, at: number): void {
    this.queued = false;
    const cursor = this.ackedTo;
    const cap = this.seqs.length;
    // The first conversation's run is the ledger's own, kept from drain to drain with its key: a
    // broadcast drains one event of one conversation per ledger, and a run and a key made per drain
    // outlived the batch's collections (old-space garbage on every attachment).
    let first: Run | undefined;
    let runs: Map<string, Run> | undefined;
    // Consecutive events are mostly of one conversation: its run is reused without building a key.
    let run: Run | undefined;
    while (this.count > 0 && this.seqs[this.head]! <= cursor) {
      const seq = this.seqs[this.head]!;
      const target = this.targets[this.head]!;
      this.targets[this.head] = undefined;
      this.head = (this.head + 1) % cap;
      this.count--;
      if (run === undefined || !sameConv(run.target, target)) {
        if (first === undefined) run = first = this.firstRun(target);
        else if (sameConv(first.target, target)) run = first;
        else {
          const conv = convKeyOf(target);
          run = runs?.get(conv);
          if (!run) (runs ??= new Map()).set(conv, (run = { conv, target, lo: 0, hi: 0 }));
        }
      }
      const lo = this.joined === undefined ? this.start + 1 : this.epochStart(target, seq) + 1;
      if (run.lo !== lo) {
        // The agent left the room and came back: the earlier stay is its own range.
        if (run.lo !== 0) w.markAt(this.reader, run.conv, 'delivered', run.lo, run.hi, at, run.target);
        run.lo = lo;
      }
      run.hi = seq;
    }
    if (this.count === 0) this.head = 0;
    if (first) w.markAt(this.reader, first.conv, 'delivered', first.lo, first.hi, at, first.target);
    if (runs) for (const r of runs.values()) w.markAt(this.reader, r.conv, 'delivered', r.lo, r.hi, at, r.target);
  }

  /** The ledger's own run, emptied, for `target`'s conversation (its key made only when the conversation changed). */
  private firstRun(target: Target): Run {
    const r = this.first;
    if (r === undefined) return (this.first = { conv: convKeyOf(target), target, lo: 0, hi: 0 });
    if (!sameConv(r.target, target)) r.conv = convKeyOf(target);
    r.target = target;
    r.lo = 0;
    r.hi = 0;
    return r;
  }

  /** The seq after which this attachment was sent a room's messages, for a message at `seq`. */
  private epochStart(target: Target, seq: number): number {
    if (this.joined === undefined || target.kind === 'dm') return this.start;
    const seqs = this.joined.get(target.room_id);
    if (!seqs) return this.start;
    let from = this.start;
    for (const j of seqs) if (j < seq && j > from) from = j;
    return from;
  }

  private grow(): void {
    const cap = this.seqs.length === 0 ? FIRST_CAPACITY : Math.min(this.seqs.length * 2, MAX_UNACKED);
    const seqs: number[] = new Array<number>(cap).fill(0);
    const targets: (Target | undefined)[] = new Array(cap);
    for (let k = 0; k < this.count; k++) {
      const i = (this.head + k) % this.seqs.length;
      seqs[k] = this.seqs[i]!;
      targets[k] = this.targets[i];
    }
    this.seqs = seqs;
    this.targets = targets;
    this.head = 0;
  }
}

/** Whether two targets are one conversation, without building their keys. */
function sameConv(a: Target, b: Target): boolean {
  if (a === b) return true;
  if (a.kind === 'room' && b.kind === 'room') return a.room_id === b.room_id;
  if (a.kind === 'thread' && b.kind === 'thread') return a.thread_id === b.thread_id;
  if (a.kind === 'dm' && b.kind === 'dm') return a.dm_id === b.dm_id;
  return false;
}
