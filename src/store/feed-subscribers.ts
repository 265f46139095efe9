// The subscriber side of an event feed, shared by every backend's feed: a subscriber that starts
// behind reads the backlog from the store by cursor, then joins live delivery with no gap and no
// duplicate. The feed itself decides what is delivered (`head`) and hands each batch to deliver().

import type { FeedSubscription, StoredEvent } from './types.js';

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

export class FeedSubscribers {
  private readonly subs = new Set<Sub>();

  /**
   * `head` is the highest seq live delivery has handed out; `onSubscriberError`, when given, keeps
   * a throwing subscriber from stopping the others (otherwise the error reaches the caller).
   */
  constructor(
    private readonly read: ReadEvents,
    private readonly head: () => number,
    private readonly onSubscriberError?: (err: Error) => void,
  ) {}

  subscribe(fromSeq: number, onEvents: (events: StoredEvent[]) => void, onError?: (err: Error) => void): FeedSubscription {
    const sub: Sub = { at: Math.max(0, fromSeq), live: false, closed: false, onEvents };
    this.subs.add(sub);
    const close = () => {
      sub.closed = true;
      this.subs.delete(sub);
    };
    if (sub.at >= this.head()) sub.live = true;
    else {
      void this.catchUp(sub).catch((err: unknown) => {
        if (sub.closed) return;
        close();
        onError?.(err instanceof Error ? err : new Error(String(err)));
      });
    }
    return { close };
  }

  /** Calls `wake` once, when events after `fromSeq` are delivered (or read from the backlog). */
  wakeOnce(fromSeq: number, wake: () => void, onError?: (err: Error) => void): FeedSubscription {
    // Nothing is delivered before subscribe returns (the backlog is read after an await).
    const sub = this.subscribe(
      fromSeq,
      () => {
        sub.close();
        wake();
      },
      onError,
    );
    return sub;
  }

  /** Hands a batch, in seq order and above `head` before it, to every live subscriber. */
  deliver(batch: StoredEvent[]): void {
    for (const sub of this.subs) {
      if (!sub.live || sub.closed) continue;
      const mine = batch[0]!.seq > sub.at ? batch : batch.filter((e) => e.seq > sub.at);
      if (mine.length === 0) continue;
      sub.at = mine[mine.length - 1]!.seq;
      if (!this.onSubscriberError) sub.onEvents(mine);
      else {
        try {
          sub.onEvents(mine);
        } catch (err) {
          this.onSubscriberError(err as Error);
        }
      }
    }
  }

  /** Reads the backlog by cursor until the subscriber reaches what live delivery has handed out. */
  private async catchUp(sub: Sub): Promise<void> {
    while (!sub.closed && sub.at < this.head()) {
      const page = (await this.read(sub.at, PAGE)).filter((e) => e.seq > sub.at && e.seq <= this.head());
      if (sub.closed) return;
      if (page.length === 0) break;
      sub.at = page[page.length - 1]!.seq;
      sub.onEvents(page);
    }
    // Nothing is delivered between the last read's resolution and here: live from this seq on.
    if (!sub.closed) sub.live = true;
  }
}
