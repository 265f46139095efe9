// The in-process event feed: fed by this process's writes (the only writer of an in-process
// backend), in sequence order, once each. A subscriber that starts behind reads the backlog from
// the store by cursor first, then joins the live delivery with no gap and no duplicate. A reader
// that only needs waking (onWritten) is woken as soon as a write is applied, a group commit sooner.

import type { EventFeed, FeedSubscription, StoredEvent } from './types.js';
import { FeedSubscribers, type ReadEvents } from './feed-subscribers.js';

export type { ReadEvents } from './feed-subscribers.js';

/** A reader waiting (onWritten) for an event after `after`. */
interface Watcher {
  after: number;
  wake: () => void;
  delivered: FeedSubscription;
}

export class LocalFeed implements EventFeed {
  private readonly subs: FeedSubscribers;
  /** Events handed over out of order (a write whose durability settled late), by seq. */
  private readonly early = new Map<number, StoredEvent>();
  private filling = false;
  private readonly watchers = new Set<Watcher>();
  rollbacks = 0;

  constructor(
    private readonly read: ReadEvents,
    private delivered: number,
  ) {
    this.subs = new FeedSubscribers(read, () => this.delivered);
  }

  get head(): number {
    return this.delivered;
  }

  /** Called by the backend with a durable batch's events. */
  publish(events: readonly StoredEvent[]): void {
    const batch: StoredEvent[] = [];
    for (const e of events) {
      if (e.seq <= this.delivered) continue;
      if (e.seq === this.delivered + 1 && this.early.size === 0) {
        batch.push(e);
        this.delivered = e.seq;
      } else this.early.set(e.seq, e);
    }
    while (this.early.has(this.delivered + 1)) {
      const e = this.early.get(this.delivered + 1)!;
      this.early.delete(e.seq);
      batch.push(e);
      this.delivered = e.seq;
    }
    if (batch.length > 0) this.deliver(batch);
    // A write that failed after its events were applied leaves a hole no publish fills: read it.
    if (this.early.size > 0) void this.fillGap();
  }

  subscribe(fromSeq: number, onEvents: (events: StoredEvent[]) => void, onError?: (err: Error) => void): FeedSubscription {
    return this.subs.subscribe(fromSeq, onEvents, onError);
  }

  onWritten(afterSeq: number, wake: () => void, onError?: (err: Error) => void): FeedSubscription {
    // `delivered`: what is durable already, or becomes so without an applied() call (the memory backend's writes).
    const w: Watcher = { after: afterSeq, wake, delivered: this.subs.wakeOnce(afterSeq, () => this.fire(w), onError) };
    this.watchers.add(w);
    return { close: () => this.unwatch(w) };
  }

  /**
   * Called by the backend once a write's events (up to `lastSeq`) are applied, before they are
   * durable: wakes the onWritten watchers they concern, after the write's own code has run.
   */
  applied(lastSeq: number): void {
    if (this.watchers.size === 0) return;
    queueMicrotask(() => {
      for (const w of this.watchers) if (lastSeq > w.after) this.fire(w);
    });
  }

  /** Called by the backend when events it had applied were undone: every watcher reads again. */
  rolledBack(): void {
    this.rollbacks++;
    queueMicrotask(() => {
      for (const w of this.watchers) this.fire(w);
    });
  }

  private fire(w: Watcher): void {
    if (this.unwatch(w)) w.wake();
  }

  private unwatch(w: Watcher): boolean {
    w.delivered.close();
    return this.watchers.delete(w);
  }

  private deliver(batch: StoredEvent[]): void {
    this.subs.deliver(batch);
  }

  private async fillGap(): Promise<void> {
    if (this.filling) return;
    this.filling = true;
    try {
      while (this.early.size > 0) {
        const missing = await this.read(this.delivered, Math.min(...this.early.keys()) - this.delivered - 1).catch(() => []);
        if (missing.length === 0) {
          // The store does not hold the hole: skip it rather than stall every subscriber.
          this.delivered = Math.min(...this.early.keys()) - 1;
        }
        this.publish(missing);
      }
    } finally {
      this.filling = false;
    }
  }
}
