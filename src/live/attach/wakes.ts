// Targeted wakes sent to one attachment and not yet acknowledged, in cursor order.

import type { Wake } from '../agent-events.js';

/** Unacknowledged wakes kept per attachment; older ones beyond it are reported as failed. */
export const MAX_PENDING_WAKES = 1024;

export class WakeLedger {
  private readonly pending = new Map<number, Wake>();

  get size(): number {
    return this.pending.size;
  }

  /** Records a wake sent at `seq`; returns wakes evicted to stay bounded. */
  add(seq: number, w: Wake): Wake[] {
    this.pending.set(seq, w);
    const evicted: Wake[] = [];
    for (const [s, old] of this.pending) {
      if (this.pending.size <= MAX_PENDING_WAKES) break;
      this.pending.delete(s);
      evicted.push(old);
    }
    return evicted;
  }

  /** Removes and returns the wakes an ACK of `cursor` covers. */
  ackUpTo(cursor: number): Wake[] {
    const done: Wake[] = [];
    // Map order is insertion order, which is cursor order.
    for (const [s, w] of this.pending) {
      if (s > cursor) break;
      this.pending.delete(s);
      done.push(w);
    }
    return done;
  }

  /** Removes and returns every pending wake (the attachment is closing). */
  drain(): Wake[] {
    const all = [...this.pending.values()];
    this.pending.clear();
    return all;
  }
}
