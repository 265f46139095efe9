// The SSE replay buffer: the newest `capacity` stored events in memory, found by event id.
//
// Events are kept as their JSON text, not as objects: ten thousand message graphs held in old
// space made every garbage collection trace (and every young collection copy) them, which cost
// more than the rest of a send. A replay (an SSE reconnect, rare) parses what it hands out.

import { jsonOf, rememberJson } from '../protocol/json-cache.js';
import type { ServiceEvent } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';

export class ReplayBuffer {
  private ids: (string | undefined)[];
  private texts: (string | undefined)[];
  private seqs: number[];
  /** Absolute index of the next push; slot = index % capacity. */
  private next = 0;

  constructor(private capacity: number) {
    this.capacity = Math.max(0, capacity);
    this.ids = new Array<string | undefined>(this.capacity);
    this.texts = new Array<string | undefined>(this.capacity);
    this.seqs = new Array<number>(this.capacity).fill(0);
  }

  get size(): number {
    return Math.min(this.next, this.capacity);
  }

  push(e: StoredEvent): void {
    if (this.capacity === 0) return;
    const slot = this.next % this.capacity;
    this.ids[slot] = e.event.id;
    this.texts[slot] = jsonOf(e.event);
    this.seqs[slot] = e.seq;
    this.next++;
  }

  /** Events newer than the one with `eventId`, oldest first; undefined when it is not buffered. */
  after(eventId: string): StoredEvent[] | undefined {
    // Newest first: an id pushed twice counts where it was pushed last.
    for (let i = this.next - 1; i >= this.next - this.size; i--) {
      if (this.ids[i % this.capacity] === eventId) return this.range(i + 1);
    }
    return undefined;
  }

  /** Every buffered event, oldest first. */
  all(): StoredEvent[] {
    return this.range(this.next - this.size);
  }

  /** Changes the capacity (config reload), keeping the newest events that still fit. */
  resize(capacity: number): void {
    const keep = capacity > 0 ? this.all().slice(-capacity) : [];
    this.capacity = Math.max(0, capacity);
    this.ids = new Array<string | undefined>(this.capacity);
    this.texts = new Array<string | undefined>(this.capacity);
    this.seqs = new Array<number>(this.capacity).fill(0);
    this.next = 0;
    for (const e of keep) this.push(e);
  }

  private range(from: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = from; i < this.next; i++) {
      const slot = i % this.capacity;
      const text = this.texts[slot]!;
      const event = JSON.parse(text) as ServiceEvent;
      // The text is the event's JSON already: streams send it without serializing again.
      rememberJson(event, text);
      out.push({ seq: this.seqs[slot]!, event });
    }
    return out;
  }
}
