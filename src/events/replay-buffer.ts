// The SSE replay buffer: the newest `capacity` stored events in memory, found by event id.

import type { StoredEvent } from '../store/types.js';

export class ReplayBuffer {
  private ring: (StoredEvent | undefined)[];
  /** Absolute index of the next push; slot = index % capacity. */
  private next = 0;
  private readonly index = new Map<string, number>();

  constructor(private capacity: number) {
    this.ring = new Array<StoredEvent | undefined>(Math.max(0, capacity));
  }

  get size(): number {
    return Math.min(this.next, this.capacity);
  }

  push(e: StoredEvent): void {
    if (this.capacity === 0) return;
    const slot = this.next % this.capacity;
    const old = this.ring[slot];
    if (old) this.index.delete(old.event.id);
    this.ring[slot] = e;
    this.index.set(e.event.id, this.next);
    this.next++;
  }

  /** Events newer than the one with `eventId`, oldest first; undefined when it is not buffered. */
  after(eventId: string): StoredEvent[] | undefined {
    const at = this.index.get(eventId);
    return at === undefined ? undefined : this.range(at + 1);
  }

  /** Every buffered event, oldest first. */
  all(): StoredEvent[] {
    return this.range(this.next - this.size);
  }

  /** Changes the capacity (config reload), keeping the newest events that still fit. */
  resize(capacity: number): void {
    const keep = capacity > 0 ? this.all().slice(-capacity) : [];
    this.capacity = Math.max(0, capacity);
    this.ring = new Array<StoredEvent | undefined>(this.capacity);
    this.index.clear();
    this.next = 0;
    for (const e of keep) this.push(e);
  }

  private range(from: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = from; i < this.next; i++) out.push(this.ring[i % this.capacity]!);
    return out;
  }
}
