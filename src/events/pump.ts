// Moves the store's event feed into the in-process broker, in order. Before a batch is published,
// each preparer (contributed by features: live delivery resolves each event's audience) may read
// the store; batches wait for the one before, so publication order is sequence order.

import type { EventFeed, FeedSubscription, StoredEvent } from '../store/types.js';
import type { Broker } from './broker.js';

/** Readies a batch before publication (it may read the store). */
export type Preparer = (events: readonly StoredEvent[]) => Promise<void> | void;

export class FeedPump {
  private chain: Promise<void> = Promise.resolve();
  private sub: FeedSubscription | undefined;
  private queued: StoredEvent[] = [];

  constructor(
    private readonly feed: EventFeed,
    private readonly broker: Broker,
    private readonly preparers: readonly Preparer[],
    private readonly onError: (err: Error) => void,
  ) {}

  /** Publishes every event stored after the feed's current head. */
  start(): void {
    this.sub ??= this.feed.subscribe(
      this.feed.head,
      (events) => {
        // Batches that arrive while one is being prepared go together as the next one: a backlog
        // costs one preparation, not one per batch, so it shrinks instead of growing.
        const scheduled = this.queued.length > 0;
        for (const e of events) this.queued.push(e);
        if (scheduled) return;
        // A failing batch must not stop the ones after it.
        this.chain = this.chain
          .then(() => {
            const batch = this.queued;
            this.queued = [];
            return this.publish(batch);
          })
          .catch((err: unknown) => this.onError(err as Error));
      },
      this.onError,
    );
  }

  private async publish(events: StoredEvent[]): Promise<void> {
    for (const p of this.preparers) {
      try {
        // Awaited only when it is a promise: a preparer that returns nothing is followed by the
        // publication in the same synchronous step (the live hub relies on it).
        const ready = p(events);
        if (ready) await ready;
      } catch (err) {
        // Published anyway: a missing preparation costs a subscriber an event, a stall costs all.
        this.onError(err as Error);
      }
    }
    this.broker.publish(events);
  }

  /** Resolves once everything handed over so far is published. */
  idle(): Promise<void> {
    return this.chain;
  }

  close(): void {
    this.sub?.close();
    this.sub = undefined;
  }
}
