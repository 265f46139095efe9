// Token buckets keyed by string (the request limits per credential and per address, the relay's
// new rooms per address, OAuth client registrations per address), and the client address of a
// request that the per-address buckets are keyed by.

import type { IncomingMessage } from 'node:http';

export type Take = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Keys idle long enough to be full again are forgotten once the map holds this many. */
const SWEEP_AT = 10_000;

/** Token buckets keyed by string: `rate` tokens per second, at most `burst` saved up. Pure (time is passed in). */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly rate: number,
    readonly burst: number,
  ) {
    if (!(rate > 0) || !(burst >= 1)) throw new RangeError('rate must be > 0 and burst >= 1');
  }

  /** Takes one token from `key`'s bucket, or says how long until one is available. */
  take(key: string, now: number): Take {
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now);
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) * this.rate) / 1000);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - b.tokens) * 1000) / this.rate) };
  }

  /** Forgets buckets that have refilled completely (they behave exactly like new ones). */
  sweep(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((now - b.at) * this.rate) / 1000 >= this.burst) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** The burst a rate allows: two seconds' worth, at least one request. */
export const burstFor = (rps: number): number => Math.max(1, Math.ceil(rps * 2));

/** The client address of a request, IPv4-mapped IPv6 folded to IPv4. */
export function clientAddress(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? 'unknown';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}
