// Failed authentications per client address (server.limits.auth_failures_per_minute, on by
// default): after N failures in a window of one minute, further failures from that address are
// answered 429 until the window ends. Only failures count and only failures are refused, so a
// valid credential from a limited address still works (a shared NAT is not locked out by one
// guesser behind it). Pure: time is passed in.

/** The default: 20 failed authentications per address per minute. */
export const AUTH_FAILURES_PER_MINUTE = 20;
export const AUTH_FAILURE_WINDOW_MS = 60_000;

export type FailureVerdict = { ok: true } | { ok: false; retryAfterMs: number };

interface Window {
  start: number;
  count: number;
}

/** Windows that ended are forgotten once the map holds this many addresses. */
const SWEEP_AT = 10_000;

/** Counts failed authentications per key in fixed one-minute windows. */
export class AuthFailures {
  private readonly windows = new Map<string, Window>();

  constructor(
    public limit: number,
    readonly windowMs: number = AUTH_FAILURE_WINDOW_MS,
  ) {}

  /** Records one failure of `key`; refuses it when the key already used up its window's allowance. */
  fail(key: string, now: number): FailureVerdict {
    if (!(this.limit > 0)) return { ok: true };
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      if (!w && this.windows.size >= SWEEP_AT) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.limit) return { ok: false, retryAfterMs: w.start + this.windowMs - now };
    w.count += 1;
    return { ok: true };
  }

  /** Forgets windows that have ended (they behave exactly like absent ones). */
  sweep(now: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(key);
  }

  get size(): number {
    return this.windows.size;
  }
}
