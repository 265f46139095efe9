// One timer for the redelivery of every attachment's unacknowledged wakes (wakes.ts), running only
// while some attachment has a wake it may still send again: an attachment whose runtime ACKs in
// time is never looked at. Each tick asks the attachments it tracks to send what is due.

/** Something with wakes it may send again (an attachment). */
export interface Redelivering {
  /** Sends the wakes due at `now`; whether any may still be sent again later. */
  redeliver(now: number): boolean;
}

export class RedeliveryTimer {
  private readonly tracked = new Set<Redelivering>();
  private timer: NodeJS.Timeout | undefined;

  /** `tickMs()` is read at each start: the config may be reloaded in between. */
  constructor(private readonly tickMs: () => number) {}

  /** Starts looking at `r` (it has a wake in hand). */
  track(r: Redelivering): void {
    this.tracked.add(r);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.tickMs());
      this.timer.unref();
    }
  }

  untrack(r: Redelivering): void {
    this.tracked.delete(r);
    if (this.tracked.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const now = Date.now();
    for (const r of this.tracked) if (!r.redeliver(now)) this.tracked.delete(r);
    if (this.tracked.size === 0) this.stop();
  }
}

/** A tick a quarter of the deadline apart, between 50 ms and 1 s: a wake is sent again at most that late. */
export const redeliveryTickMs = (redeliverAfterMs: number): number => Math.min(1000, Math.max(50, Math.floor(redeliverAfterMs / 4)));
