// The in-process publisher of stored events. Subscribers are called synchronously in publish
// order; each subscriber owns its own bounded queue (see src/live).

import type { StoredEvent } from '../store/types.js';

export type Subscriber = (e: StoredEvent) => void;

export class Broker {
  private readonly subscribers = new Set<Subscriber>();

  /** Registers a subscriber; returns its clean-up. */
  subscribe(fn: Subscriber): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  publish(events: readonly StoredEvent[]): void {
    for (const e of events) for (const fn of this.subscribers) fn(e);
  }

  get size(): number {
    return this.subscribers.size;
  }
}
