// Feeds one attachment in sequence order with no gap and no duplicate: first from what is durable
// (resume from a cursor, or catch-up after falling behind: the hub's newest events, else the store),
// then live from a bounded broker queue.
// The switch happens in one synchronous step, so every event comes from exactly one of the two.

import type { Duplex } from 'node:stream';
import type { QueueOptions, Subscription } from '../../events/broker.js';
import type { StoredEvent } from '../../store/types.js';
import { eventJson } from '../encode.js';
import type { LiveHub } from '../hub.js';

/** Most events, and bytes of event JSON, waiting for a congested attachment before it is moved back to store catch-up. */
export const ATTACH_QUEUE_MAX = 1024;
export const ATTACH_QUEUE_MAX_BYTES = 4 * 1024 * 1024;
/** Socket bytes waiting beyond which an attachment counts as congested. */
export const CONGESTED_BYTES = 512 * 1024;
/** Events read per store page during catch-up. */
const PAGE = 64;

export interface FeedSink {
  /** Sends what the attachment wants of these events (all newer than anything given before). */
  write(events: readonly StoredEvent[]): void;
}

const sizeOfEvent = (e: StoredEvent): number => eventJson(e.event).length;

/**
 * The feed is its own broker queue options (deliver and dropped are its methods), and its drain
 * listener is made on first congestion: thousands of attachments then share the code rather than
 * each holding an options object and a handful of closures.
 */
export class Feed implements QueueOptions {
  private seq = 0;
  private sub: Subscription | undefined;
  private waiting = false;
  private stopped = false;
  /** A store catch-up is running (it reads asynchronously). */
  private pumping = false;
  private onDrain: (() => void) | undefined;

  constructor(
    private readonly hub: LiveHub,
    private readonly socket: Duplex,
    private readonly sink: FeedSink,
  ) {}

  /** The highest sequence handed to the sink (or skipped as before the start). */
  get position(): number {
    return this.seq;
  }

  /**
   * Sets where delivery starts: after `cursor`, or at the live head when there is none or it is
   * ahead of this server (a store that was reset). Returns the cursor actually used.
   */
  from(cursor: number | undefined): number {
    const head = this.hub.publishedSeq;
    this.seq = cursor === undefined || cursor > head ? head : cursor;
    return this.seq;
  }

  /** Starts delivering. */
  run(): void {
    this.pump();
  }

  stop(): void {
    this.stopped = true;
    this.sub?.close();
    this.sub = undefined;
    if (this.onDrain) this.socket.off('drain', this.onDrain);
  }

  // QueueOptions, read by the broker.
  get max(): number {
    return ATTACH_QUEUE_MAX;
  }
  get maxBytes(): number {
    return ATTACH_QUEUE_MAX_BYTES;
  }
  get sizeOf(): (e: StoredEvent) => number {
    return sizeOfEvent;
  }
  get surface(): string {
    return 'attach';
  }
  get ignores(): ReadonlySet<string> {
    return this.hub.attachmentIgnores;
  }

  /** The broker's hand-over of the live queue. */
  deliver(batch: readonly StoredEvent[]): void {
    this.give(batch);
    if (!this.stopped && this.sub && this.congested()) {
      this.sub.pause();
      this.waitForDrain();
    }
  }

  /** The broker let go (it fell behind): nothing is lost, the store has every event; catch up from it once drained. */
  dropped(): void {
    this.sub = undefined;
    if (this.congested()) this.waitForDrain();
    else setImmediate(() => this.pump());
  }

  private congested(): boolean {
    return this.socket.writableLength > CONGESTED_BYTES;
  }

  private waitForDrain(): void {
    if (this.waiting) return;
    this.waiting = true;
    this.onDrain ??= () => {
      this.waiting = false;
      if (this.stopped) return;
      if (this.sub) this.sub.resume();
      else this.pump();
    };
    this.socket.once('drain', this.onDrain);
  }

  private give(events: readonly StoredEvent[]): void {
    let from = 0;
    while (from < events.length && events[from]!.seq <= this.seq) from++;
    if (from === events.length) return;
    const fresh = from === 0 ? events : events.slice(from);
    this.seq = fresh[fresh.length - 1]!.seq;
    this.sink.write(fresh);
  }

  /** Store catch-up until the live head, then the broker queue. */
  private pump(): void {
    // Already live (the queue feeds it), or a catch-up is reading.
    if (this.sub || this.pumping) return;
    this.pumping = true;
    this.catchUp()
      .catch(() => {
        // The store could not be read: the attachment ends rather than skip events.
        this.stopped = true;
        this.socket.destroy();
      })
      .finally(() => (this.pumping = false));
  }

  private async catchUp(): Promise<void> {
    while (!this.stopped) {
      if (this.congested()) return this.waitForDrain();
      // Only what the broker has published is durable; newer rows may still be awaiting their fsync.
      // The check and the subscription happen in one synchronous step: nothing falls between.
      if (this.seq >= this.hub.publishedSeq) return this.subscribe();
      const head = this.hub.publishedSeq;
      // The newest events are held in memory; older ones are read from the store.
      const page = this.hub.recent.after(this.seq, PAGE) ?? (await this.storePage(head));
      // Events no attachment receives need no audience (a presence event's reads every room).
      await this.hub.prepare(
        page,
        page.filter((e) => !this.hub.attachmentIgnores.has(e.event.type)),
      );
      if (this.stopped) return;
      if (page.length === 0) {
        this.seq = Math.max(this.seq, head);
        continue;
      }
      for (const e of page) {
        this.give([e]);
        if (this.stopped || this.congested()) break;
      }
    }
  }

  private async storePage(head: number): Promise<StoredEvent[]> {
    return (await this.hub.ctx.store.eventsAfter(this.seq, PAGE)).filter((e) => e.seq <= head);
  }

  private subscribe(): void {
    this.sub = this.hub.ctx.broker.open(this);
  }
}
