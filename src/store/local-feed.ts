// The in-process event feed: fed by this process's writes (the only writer of an in-process
// backend), in sequence order, once each. A subscriber that starts behind reads the backlog from
// the store by cursor first, then joins the live delivery with no gap and no duplicate.

import type { EventFeed, FeedSubscription, StoredEvent } from './types.js';

/** Reads stored events with seq > `after`, oldest first. */
export type ReadEvents = (after: number, limit: number) => Promise<StoredEvent[]>;

const PAGE = 512;

interface Sub {
  /** Highest seq handed to this subscriber. */
  at: number;
  live: boolean;
  closed: boolean;
  onEvents: (events: StoredEvent[]) => void;
}

export class LocalFeed implements EventFeed {
  private readonly subs = new Set<Sub>();
  /** Events handed over out of order (a write whose durability settled late), by seq. */
  private readonly early = new Map<number, StoredEvent>();
  private filling = false;

  constructor(
    private readonly read: ReadEvents,
    private delivered: number,
  ) {}

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
    const sub: Sub = { at: Math.max(0, fromSeq), live: false, closed: false, onEvents };
    this.subs.add(sub);
    const close = () => {
      sub.closed = true;
      this.subs.delete(sub);
    };
    if (sub.at >= this.delivered) sub.live = true;
    else {
      void this.catchUp(sub).catch((err: unknown) => {
        if (sub.closed) return;
        close();
        onError?.(err instanceof Error ? err : new Error(String(err)));
      });
    }
    return { close };
  }

  /** Reads the backlog by cursor until the subscriber reaches what live delivery has handed out. */
  private async catchUp(sub: Sub): Promise<void> {
    while (!sub.closed && sub.at < this.delivered) {
      const page = (await this.read(sub.at, PAGE)).filter((e) => e.seq > sub.at && e.seq <= this.delivered);
      if (sub.closed) return;
      if (page.length === 0) break;
      sub.at = page[page.length - 1]!.seq;
      sub.onEvents(page);
    }
    // Nothing is delivered between the last read's resolution and here: live from this seq on.
    if (!sub.closed) sub.live = true;
  }

  private deliver(batch: StoredEvent[]): void {
    for (const sub of this.subs) {
      if (!sub.live || sub.closed) continue;
      const mine = batch[0]!.seq > sub.at ? batch : batch.filter((e) => e.seq > sub.at);
      if (mine.length === 0) continue;
      sub.at = mine[mine.length - 1]!.seq;
      sub.onEvents(mine);
    }
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
