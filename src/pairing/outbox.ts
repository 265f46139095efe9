// Durable outbound relay without tables of its own: the event log already holds every accepted
// message durably, so a pairing only keeps the sequence number of the last event it has dealt with
// (cursor.ts, in the store). Draining reads events after it, in order, and sends the eligible
// messages; the cursor moves past a message only once the remote has answered it. The remote is
// idempotent by message id, so a message resent after a crash lands once. One drain at a time per
// pairing, across every process sharing the store: a drain holds the pairing's lease.

import type { Message, ServiceEvent } from '../protocol/types.js';
import type { Lease, Store } from '../store/types.js';
import type { PairingCursor } from './cursor.js';

/** What happened to one message: the remote took it (or refused it for good), or try later. */
export type Delivery = 'done' | 'retry';

export interface OutboxOptions {
  store: Store;
  cursor: PairingCursor;
  /** The lease that makes this the pairing's only relay worker (`pairing:<id>`). */
  leaseKey: string;
  /** Whether this message goes to this pairing (locally originated, room federated, ...). */
  eligible: (m: Message) => Promise<boolean>;
  deliver: (m: Message) => Promise<Delivery>;
  /** Events features relay (network/relayed-event.ts) travel the same way, in event order with the messages. */
  events?: {
    eligible: (e: ServiceEvent) => Promise<boolean>;
    deliver: (e: ServiceEvent) => Promise<Delivery>;
  };
  /** Whether sending is worth trying now (peer compatible and reachable). */
  canSend: () => boolean;
  /** How many eligible messages wait (metrics). */
  onPending?: (n: number) => void;
}

const BATCH = 200;
/** How long a relay worker's lease lasts without renewal (a crashed worker's drain moves on after it). */
const LEASE_MS = 30_000;
/** A holder unique to this process. */
const OWNER = `outbox-${process.pid}-${Math.random().toString(36).slice(2)}`;
/** How far the pending count looks ahead; a longer backlog reads as this many. */
const PENDING_SCAN = 2000;

export class Outbox {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly o: OutboxOptions) {}

  /** Starts draining, or asks a running drain to look again when it is done. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.leased()
      .catch(() => {
        // A store that cannot be read or written now: the next kick tries again.
      })
      .finally(() => {
        this.running = undefined;
        void this.pending().then(
          (n) => this.o.onPending?.(n),
          () => {},
        );
      });
  }

  /** Drains now and resolves when the outbox is idle (caught up, or waiting for the peer). */
  async flush(): Promise<void> {
    this.kick();
    while (this.running) await this.running;
  }

  /** Waits for a running drain to stop and writes the cursor; nothing is sent after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
    await this.o.cursor.flush();
  }

  /** Eligible messages after the cursor (bounded look-ahead). */
  async pending(): Promise<number> {
    await this.o.cursor.loaded;
    let n = 0;
    for (const e of await this.o.store.eventsAfter(this.o.cursor.seq, PENDING_SCAN)) if (await this.jobOf(e.event)) n++;
    return n;
  }

  /** The delivery an event asks of this pairing, when it asks one. */
  private async jobOf(e: ServiceEvent): Promise<(() => Promise<Delivery>) | undefined> {
    if (e.type === 'message.created' && e.message) {
      const m = e.message;
      return (await this.o.eligible(m)) ? () => this.o.deliver(m) : undefined;
    }
    const ev = this.o.events;
    return ev && (await ev.eligible(e)) ? () => ev.deliver(e) : undefined;
  }

  /** Drains while holding the pairing's lease; another holder drains instead. */
  private async leased(): Promise<void> {
    await this.o.cursor.loaded;
    const grant = await this.o.store.leases.acquire(this.o.leaseKey, OWNER, LEASE_MS);
    if (!grant.ok) return;
    try {
      await this.run(grant.lease);
    } finally {
      await grant.lease.release();
    }
  }

  private async run(lease: Lease): Promise<void> {
    do {
      this.again = false;
      while (!this.closed && this.o.canSend()) {
        if (!(await lease.renew())) return;
        const batch = await this.o.store.eventsAfter(this.o.cursor.seq, BATCH);
        if (batch.length === 0) break;
        let passed = this.o.cursor.seq;
        for (const e of batch) {
          const job = await this.jobOf(e.event);
          if (job) {
            if (this.closed || !this.o.canSend()) break;
            const r = await job();
            if (r === 'retry') {
              this.o.cursor.advance(passed);
              return;
            }
            // Durable before the next one: a crash now resends nothing that was already taken.
            await this.o.cursor.commit({ seq: e.seq });
          }
          passed = e.seq;
        }
        this.o.cursor.advance(passed);
        if (passed !== batch[batch.length - 1]!.seq) return;
      }
    } while (this.again && !this.closed);
  }
}
