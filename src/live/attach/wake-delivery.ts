// The wakes of one attachment, from hand-over to ACK: the ledger of those in hand (wakes.ts), the
// wake events (agent.wake.delivered on ACK, agent.wake.failed when evicted, given up on or left
// unacknowledged at close), redelivery of those not acknowledged in time, and what the delivery
// feature records of each (network/delivery.ts). Made on an attachment's first wake.
//
// A redelivered wake is its stored event read again and encoded as before: the same cursor and
// event id, so a runtime recognises the copy (docs/live.md). It is sent only while the agent may
// still receive it (a room it left is not written to again).

import type { HandedWake } from '../../network/delivery.js';
import { deliverySettings } from '../../network/delivery.js';
import type { ServiceEvent } from '../../protocol/types.js';
import { wakeEvent, type AttachedAgent, type Wake } from '../agent-events.js';
import { attachFrame } from '../encode.js';
import type { LiveHub } from '../hub.js';
import { attachmentWants, type Capabilities } from '../visibility.js';
import type { Redelivering } from './redeliver.js';
import { type SentWake, WakeLedger } from './wakes.js';

/** A wake as the delivery feature records it. */
export const handed = (w: SentWake): HandedWake => ({
  message_id: w.wake.message_id,
  seq: w.seq,
  reason: w.wake.reason,
  target: w.wake.target,
});

/** What redelivery needs of the attachment. */
export interface WakeSocket {
  caps(): Capabilities;
  /** Writes a frame. */
  send(frame: Buffer): void;
  /** Whether the attachment has ended. */
  closed(): boolean;
}

export class WakeDelivery implements Redelivering {
  private readonly ledger = new WakeLedger();

  constructor(
    private readonly hub: LiveHub,
    private readonly agent: AttachedAgent,
    private readonly socket: WakeSocket,
  ) {}

  /** A wake went out at `seq`. */
  sent(seq: number, wake: Wake): void {
    const evicted = this.ledger.add(seq, wake, Date.now());
    const delivery = this.hub.ctx.extensions.delivery;
    delivery?.offered(this.agent.id, { message_id: wake.message_id, seq, reason: wake.reason, target: wake.target }, 1);
    this.hub.redelivery.track(this);
    if (evicted.length > 0)
      this.failed(
        evicted.map((w) => w.wake),
        'too many unacknowledged wakes on this attachment',
      );
  }

  /** The runtime acknowledged up to `cursor`: those wakes are delivered. */
  acked(cursor: number): void {
    const done = this.ledger.ackUpTo(cursor);
    this.hub.ctx.extensions.delivery?.acked(this.agent.id, done.map(handed));
    if (done.length > 0) void this.hub.emit(done.map((w) => wakeEvent(this.hub.ctx, 'agent.wake.delivered', this.agent, w.wake)));
  }

  /** The redelivery timer's tick: sends again what is due, gives up on what was offered enough. */
  redeliver(now: number): boolean {
    const { redeliver_after_ms, max_offers } = deliverySettings(this.hub.ctx.config);
    const due = this.ledger.due(now, redeliver_after_ms, max_offers);
    const delivery = this.hub.ctx.extensions.delivery;
    for (const w of due.resend) void this.resend(w);
    for (const w of due.giveUp) delivery?.gaveUp(this.agent.id, handed(w), w.offers);
    if (due.giveUp.length > 0) {
      const n = max_offers === 1 ? 'once' : `${max_offers} times`;
      this.failed(
        due.giveUp.map((w) => w.wake),
        `not acknowledged: sent ${n}, ${Math.round(redeliver_after_ms / 1000)} s apart (it stays pending until an ACK covers it)`,
      );
    }
    return this.ledger.offering;
  }

  /** Sends the wake's stored event again, when the agent may still receive it. */
  private async resend(w: SentWake): Promise<void> {
    const { hub, agent, socket } = this;
    try {
      const [e] = await hub.ctx.store.eventsAfter(w.seq - 1, 1);
      if (!e || e.seq !== w.seq || socket.closed()) return;
      const net = hub.ctx.config.network.id;
      const caps = socket.caps();
      if (!attachmentWants(await hub.freshAudienceOf(e), e.event, agent.id, caps, net) || socket.closed()) return;
      const frame = attachFrame(e, caps.artifacts);
      if (!frame) return;
      socket.send(frame);
      hub.ctx.extensions.delivery?.offered(agent.id, handed(w), w.offers);
    } catch (err) {
      hub.ctx.log('warn', 'a wake could not be sent again (the next deadline tries again)', { agent: agent.id, error: String(err) });
    }
  }

  /** The attachment is closing: the wakes still in hand failed (their records stay pending). */
  close(reason: string): ServiceEvent[] {
    this.hub.redelivery.untrack(this);
    return this.ledger
      .drain()
      .filter((w) => !w.gaveUp)
      .map((w) =>
        wakeEvent(
          this.hub.ctx,
          'agent.wake.failed',
          this.agent,
          w.wake,
          `the attachment closed before acknowledging the event (${reason})`,
        ),
      );
  }

  private failed(wakes: readonly Wake[], why: string): void {
    void this.hub.emit(wakes.map((w) => wakeEvent(this.hub.ctx, 'agent.wake.failed', this.agent, w, why)));
  }
}
