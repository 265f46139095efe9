// Durable outbound relay without tables of its own: the event log already holds every accepted
// message durably, so a pairing only keeps the sequence number of the last event it has dealt with
// (cursor.ts, a small fsynced file next to the database). Draining reads events after it, in order, and sends
// the eligible messages; the cursor moves past a message only once the remote has answered it.
// The remote is idempotent by message id, so a message resent after a crash lands once.

import type { Message } from '../protocol/types.js';
import type { Store } from '../store/types.js';
import type { CursorFile } from './cursor.js';

/** What happened to one message: the remote took it (or refused it for good), or try later. */
export type Delivery = 'done' | 'retry';

export interface OutboxOptions {
  store: Store;
  cursor: CursorFile;
  /** Whether this message goes to this pairing (locally originated, room federated, ...). */
  eligible: (m: Message) => boolean;
  deliver: (m: Message) => Promise<Delivery>;
  /** Whether sending is worth trying now (peer compatible and reachable). */
  canSend: () => boolean;
  /** How many eligible messages wait (metrics). */
  onPending?: (n: number) => void;
}

const BATCH = 200;
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
    this.running = this.run().finally(() => {
      this.running = undefined;
      this.o.onPending?.(this.pending());
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
  pending(): number {
    let n = 0;
    for (const e of this.o.store.eventsAfter(this.o.cursor.seq, PENDING_SCAN)) {
      if (e.event.type === 'message.created' && e.event.message && this.o.eligible(e.event.message)) n++;
    }
    return n;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      while (!this.closed && this.o.canSend()) {
        const batch = this.o.store.eventsAfter(this.o.cursor.seq, BATCH);
        if (batch.length === 0) break;
        let passed = this.o.cursor.seq;
        for (const e of batch) {
          const m = e.event.type === 'message.created' ? e.event.message : undefined;
          if (m && this.o.eligible(m)) {
            if (this.closed || !this.o.canSend()) break;
            const r = await this.o.deliver(m);
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
