// One timer for every attachment's heartbeat instead of an interval per socket: a wheel of SLOTS
// slots turning once per heartbeat interval. An attachment joins the slot the wheel reaches last,
// so its first beat comes one interval after it opened (give or take one slot), and every beat
// after that one interval apart, as a per-socket interval would give. Ten thousand attachments
// then cost one timer, and their PINGs are spread over the interval instead of all at once.

/** Something that beats once per heartbeat interval (an attachment: lease renewal, read deadline, PING). */
export interface Beating {
  beat(): void;
  /** The wheel's slot while it beats (-1 when not): kept on the attachment, not in a map beside it. */
  wheelSlot: number;
}

/** Slots per heartbeat interval: how finely the beats of many attachments are spread. */
export const SLOTS = 8;

export class HeartbeatWheel {
  private readonly slots: Set<Beating>[] = [];
  private count = 0;
  /** Slot turns done since the timer started, and when it started: a late timer catches up. */
  private turns = 0;
  private since = 0;
  private readonly slotMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly intervalMs: number) {
    for (let i = 0; i < SLOTS; i++) this.slots.push(new Set());
    this.slotMs = Math.max(1, intervalMs / SLOTS);
  }

  /** Starts beating `b` one interval from now. */
  add(b: Beating): void {
    if (b.wheelSlot >= 0) return;
    if (this.timer) {
      // Catch up first, so the slot just turned is the one the clock is at.
      this.turn();
    } else {
      // Empty until now, so no slot holds anyone: the count starts over.
      this.since = Date.now();
      this.turns = 0;
      this.timer = setInterval(() => this.turn(), this.slotMs);
      this.timer.unref();
    }
    // The slot just turned is the last one reached again: one full interval away.
    b.wheelSlot = this.turns % SLOTS;
    this.slots[b.wheelSlot]!.add(b);
    this.count++;
  }

  remove(b: Beating): void {
    if (b.wheelSlot < 0) return;
    this.slots[b.wheelSlot]!.delete(b);
    b.wheelSlot = -1;
    if (--this.count === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  get size(): number {
    return this.count;
  }

  /** Turns the slots due by the clock (more than one when the timer fired late on a busy loop). */
  private turn(): void {
    const due = Math.floor((Date.now() - this.since) / this.slotMs);
    // After a stall longer than an interval, one beat each is enough.
    if (due - this.turns > SLOTS) this.turns = due - SLOTS;
    while (this.turns < due && this.timer) {
      this.turns++;
      // A beat may end its attachment, which deletes it from this set: iteration allows that.
      for (const b of this.slots[this.turns % SLOTS]!) b.beat();
    }
  }
}
