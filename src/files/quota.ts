// Per-credential upload limits (server.limits.file_uploads_per_minute, file_bytes_per_day; both
// off by default): a token bucket of uploads per credential, and the bytes each credential
// uploaded on the current UTC day. Counted on this instance (as the request limits are).

import { AppError } from '../errors.js';
import type { LimitsConfig } from '../config/types.js';
import { TokenBuckets } from '../http/token-buckets.js';

const retry = (seconds: number, msg: string) =>
  new AppError('too_many_requests', msg, { 'retry-after': String(Math.max(1, Math.ceil(seconds))) });

export class UploadQuota {
  private perMinute: TokenBuckets | undefined;
  private rate = 0;
  private bytesPerDay = 0;
  /** Bytes per credential on `day`. */
  private day = '';
  private used = new Map<string, number>();

  constructor(
    limits: LimitsConfig,
    private readonly clock: () => number = Date.now,
  ) {
    this.configure(limits);
  }

  configure(limits: LimitsConfig): void {
    const rate = limits.file_uploads_per_minute ?? 0;
    if (rate !== this.rate) this.perMinute = rate > 0 ? new TokenBuckets(rate / 60, rate) : undefined;
    this.rate = rate;
    this.bytesPerDay = limits.file_bytes_per_day ?? 0;
  }

  private usedToday(key: string, now: number): number {
    const day = new Date(now).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.used = new Map();
    }
    return this.used.get(key) ?? 0;
  }

  private dayLeftSeconds(now: number): number {
    const next = new Date(now);
    next.setUTCHours(24, 0, 0, 0);
    return (next.getTime() - now) / 1000;
  }

  /** Refuses (429) an upload over the rate, or one whose declared size would pass the day's bytes. */
  admit(key: string | undefined, declared: number | undefined): void {
    if (key === undefined) return;
    const now = this.clock();
    if (this.bytesPerDay > 0) {
      const used = this.usedToday(key, now);
      if (used >= this.bytesPerDay || (declared !== undefined && used + declared > this.bytesPerDay))
        throw retry(
          this.dayLeftSeconds(now),
          `this credential uploaded ${used} of its ${this.bytesPerDay} bytes today (server.limits.file_bytes_per_day)`,
        );
    }
    const t = this.perMinute?.take(key, now);
    if (t && !t.ok)
      throw retry(
        t.retryAfterMs / 1000,
        `too many uploads from this credential (limit ${this.rate} per minute, server.limits.file_uploads_per_minute)`,
      );
  }

  /** Counts an upload's bytes; refuses (429) one that took the day's bytes past the limit (it is then not kept). */
  count(key: string | undefined, size: number): void {
    if (key === undefined || this.bytesPerDay === 0) return;
    const now = this.clock();
    const used = this.usedToday(key, now);
    if (used + size > this.bytesPerDay)
      throw retry(
        this.dayLeftSeconds(now),
        `this upload would pass the credential's ${this.bytesPerDay} bytes today (server.limits.file_bytes_per_day)`,
      );
    this.used.set(key, used + size);
  }
}
