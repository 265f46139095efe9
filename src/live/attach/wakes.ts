// Targeted wakes sent to one attachment and not yet acknowledged, in cursor order.

import type { Wake } from '../agent-events.js';

/** Unacknowledged wakes kept per attachment; older ones beyond it are reported as failed. */
export const MAX_PENDING_WAKES = 1024;

const NONE: readonly Wake[] = [];

export class WakeLedger {
  /** Made on the first wake: most attachments of a busy room are never woken, and an empty Map is not free. */
  private pending: Map<number, Wake> | undefined;

  get size(): number {
    return this.pending?.size ?? 0;
  }

  /** Records a wake sent at `seq`; returns wakes evicted to stay bounded. */
  add(seq: number, w: Wake): readonly Wake[] {
    const pending = (this.pending ??= new Map());
    pending.set(seq, w);
    if (pending.size <= MAX_PENDING_WAKES) return NONE;
    const evicted: Wake[] = [];
    for (const [s, old] of pending) {
      if (pending.size <= MAX_PENDING_WAKES) break;
      pending.delete(s);
      evicted.push(old);
    }
    return evicted;
  }

  /** Removes and returns the wakes an ACK of `cursor` covers. */
  ackUpTo(cursor: number): readonly Wake[] {
    if (!this.pending) return NONE;
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
  drain(): readonly Wake[] {
    if (!this.pending) return NONE;
    const all = [...this.pending.values()];
    this.pending = undefined;
    return all;
  }
}
