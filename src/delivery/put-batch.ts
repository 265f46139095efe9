// The delivery records' puts, gathered for a moment and stored together (KvTable.putMany). Each
// attached agent asks for a few small rows now and then (its ACK stamped every 30 s, its
// attachment renewed every minute), and asks together with the others: one message's ACKs come
// from every agent in its room within a few milliseconds, a heartbeat slot's attachments renew in
// one turn. On Postgres a put was a transaction, so a network's database load grew with its
// attached agents (a hundred: about 5 transactions a second, 8 with their lease renewals, which
// postgres/leases.ts gathers the same way); gathered, it is one statement for all of them.

import type { KvPut, KvTable } from '../store/types.js';

/** How long puts are gathered before they are stored: well under any stamp's granularity (30 s). */
export const GATHER_MS = 50;

interface Gathering {
  entries: KvPut[];
  stored: Promise<void>;
}

export class PutBatch {
  private open: Gathering | undefined;

  constructor(private readonly kv: () => KvTable) {}

  /** Stores `entry` with the others asked for within GATHER_MS; resolves once stored, or rejects as the batch failed. */
  put(entry: KvPut): Promise<void> {
    if (this.open) {
      this.open.entries.push(entry);
      return this.open.stored;
    }
    const entries = [entry];
    const stored = new Promise<void>((resolve, reject) => {
      // Not unref'd: a shutdown waits for the delivery writes asked for (DeliveryState.settled).
      setTimeout(() => {
        this.open = undefined;
        this.kv().putMany(entries).then(resolve, reject);
      }, GATHER_MS);
    });
    this.open = { entries, stored };
    return stored;
  }
}
