// The newest published events, kept as the very objects the broker published. An attachment that
// resumes from a cursor a few seconds old (most reconnects), or catches up after its queue was
// dropped, reads its pages from here instead of the store: the hub has their audiences cached by
// object and their JSON is cached too. Before this, on Postgres, each of the hundreds of reconnects
// a minute of a busy network read and parsed its pages from the database and resolved their
// audiences again: most of the server's time under the heavy soak, until it could no longer keep up.
//
// What a page from here shows is what a live attachment was sent: a message as it was published
// (its later edit or deletion follows as its own event), except that a redaction scrubs every copy,
// as it does the SSE replay buffer and the store.

import type { Message } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';

export class RecentEvents {
  private readonly ring: StoredEvent[] = [];
  /** Index in `ring` of the oldest event once the ring is full (it is then overwritten next). */
  private oldest = 0;
  /** Every event published with a seq above this one is held (undefined: nothing is yet). */
  private coveredAfter: number | undefined;

  constructor(private readonly capacity: number) {}

  /** Takes a published event; events come in sequence order. */
  push(e: StoredEvent): void {
    if (this.capacity <= 0) return;
    const newest = this.newest;
    if (newest !== undefined && e.seq <= newest.seq) {
      // Out of order, which the pump never does: claim nothing rather than hand out a gap.
      this.forget(newest.seq);
      return;
    }
    // Published in order, so nothing between the one before and this one is missing.
    this.coveredAfter ??= e.seq - 1;
    if (this.ring.length < this.capacity) {
      this.ring.push(e);
      return;
    }
    this.coveredAfter = this.ring[this.oldest]!.seq;
    this.ring[this.oldest] = e;
    this.oldest = (this.oldest + 1) % this.capacity;
  }

  /**
   * Up to `limit` events with a seq above `cursor`, oldest first; undefined when some of them are
   * no longer held (the caller reads the store).
   */
  after(cursor: number, limit: number): StoredEvent[] | undefined {
    if (this.coveredAfter === undefined || cursor < this.coveredAfter) return undefined;
    const n = this.ring.length;
    // Binary search over the ring in age order for the first event above the cursor.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).seq <= cursor) lo = mid + 1;
      else hi = mid;
    }
    const out: StoredEvent[] = [];
    for (let i = lo; i < n && out.length < limit; i++) out.push(this.at(i));
    return out;
  }

  /** Shows `tombstone` in place of every held copy of the message it stands for (a redaction). */
  scrub(tombstone: Message): void {
    for (let i = 0; i < this.ring.length; i++) {
      const e = this.ring[i]!;
      if (e.event.message?.id === tombstone.id) this.ring[i] = { seq: e.seq, event: { ...e.event, message: tombstone } };
    }
  }

  private get newest(): StoredEvent | undefined {
    return this.ring.length === 0 ? undefined : this.at(this.ring.length - 1);
  }

  /** The event at position `i` in age order (0 is the oldest). */
  private at(i: number): StoredEvent {
    return this.ring[(this.oldest + i) % this.ring.length]!;
  }

  private forget(upTo: number): void {
    this.ring.length = 0;
    this.oldest = 0;
    this.coveredAfter = upTo;
  }
}
