// Targeted wakes sent to one attachment and not yet acknowledged, in cursor order: a wake not
// acknowledged within server.delivery.redeliver_after_ms is due to be sent again (the same EVENT,
// read again from the store: wake-delivery.ts), at most max_offers times in all; then it is given
// up on (reported, kept until an ACK covers it). No frame is kept here: a runtime that never ACKs
// would otherwise hold up to 1024 frames of up to 1 MiB each.

import type { Wake } from '../agent-events.js';

/** Unacknowledged wakes kept per attachment; older ones beyond it are reported as failed. */
export const MAX_PENDING_WAKES = 1024;

/** One wake in hand: what it is, its cursor, and its offers so far. */
export interface SentWake {
  wake: Wake;
  seq: number;
  offers: number;
  /** When it was last sent (ms). */
  sentAt: number;
  /** Redelivery gave up on it. */
  gaveUp: boolean;
}

/** What a redelivery tick asks of the ledger: re-send these, give these up. */
export interface Due {
  resend: SentWake[];
  giveUp: SentWake[];
}

const NONE: readonly SentWake[] = [];

export class WakeLedger {
  /** Made on the first wake: most attachments of a busy room are never woken, and an empty Map is not free. */
  private pending: Map<number, SentWake> | undefined;

  get size(): number {
    return this.pending?.size ?? 0;
  }

  /** Records a wake sent at `seq`; returns wakes evicted to stay bounded. */
  add(seq: number, wake: Wake, now: number): readonly SentWake[] {
    const pending = (this.pending ??= new Map());
    pending.set(seq, { wake, seq, offers: 1, sentAt: now, gaveUp: false });
    if (pending.size <= MAX_PENDING_WAKES) return NONE;
    const evicted: SentWake[] = [];
    for (const [s, old] of pending) {
      if (pending.size <= MAX_PENDING_WAKES) break;
      pending.delete(s);
      evicted.push(old);
    }
    return evicted;
  }

  /** Removes and returns the wakes an ACK of `cursor` covers. */
  ackUpTo(cursor: number): readonly SentWake[] {
    if (!this.pending) return NONE;
    const done: SentWake[] = [];
    // Map order is insertion order, which is cursor order.
    for (const [s, w] of this.pending) {
      if (s > cursor) break;
      this.pending.delete(s);
      done.push(w);
    }
    return done;
  }

  /**
   * The wakes due at `now`: sent `afterMs` ago or more and not acknowledged. Those sent fewer than
   * `maxOffers` times are marked sent again (the caller sends them); the others are marked given up.
   */
  due(now: number, afterMs: number, maxOffers: number): Due {
    const out: Due = { resend: [], giveUp: [] };
    if (!this.pending) return out;
    for (const w of this.pending.values()) {
      if (w.gaveUp || now - w.sentAt < afterMs) continue;
      if (w.offers < maxOffers) {
        w.offers++;
        w.sentAt = now;
        out.resend.push(w);
      } else {
        w.gaveUp = true;
        out.giveUp.push(w);
      }
    }
    return out;
  }

  /** Whether any wake may still be sent again. */
  get offering(): boolean {
    if (!this.pending) return false;
    for (const w of this.pending.values()) if (!w.gaveUp) return true;
    return false;
  }

  /** Removes and returns every pending wake (the attachment is closing). */
  drain(): readonly SentWake[] {
    if (!this.pending) return NONE;
    const all = [...this.pending.values()];
    this.pending = undefined;
    return all;
  }
}
