// send_message's optional wait for delivery (receipts, docs/receipts.md): polls the message's
// receipts until every addressed reader has it (delivered or read) or the bound runs out. The wait
// never fails the send: the message is stored either way, and the result says who is still pending.

import { setTimeout as sleep } from 'node:timers/promises';
import type { NetworkApi } from './conversations.js';

/** Longest wait send_message accepts, in seconds. */
export const DELIVERY_WAIT_MAX_S = 30;
const POLL_MS = 250;

export interface Delivery {
  delivered: string[];
  pending: string[];
  /** The bound ran out with readers still pending. */
  timed_out: boolean;
}

const name = (r: { type: string; id: string }) => (r.type === 'human' ? `human:${r.id}` : r.id);

/** Waits up to `seconds` for every addressed reader of `messageId` to have it. */
export async function waitForDelivery(client: Pick<NetworkApi, 'receipts'>, messageId: string, seconds: number): Promise<Delivery> {
  const end = Date.now() + Math.min(Math.max(seconds, 0), DELIVERY_WAIT_MAX_S) * 1000;
  for (;;) {
    const { receipts } = await client.receipts(messageId);
    const delivered = receipts.filter((r) => r.state !== 'pending').map((r) => name(r.reader));
    const pending = receipts.filter((r) => r.state === 'pending').map((r) => name(r.reader));
    if (pending.length === 0) return { delivered, pending, timed_out: false };
    if (Date.now() >= end) return { delivered, pending, timed_out: true };
    await sleep(Math.min(POLL_MS, Math.max(0, end - Date.now())));
  }
}

/** The line send_message adds about delivery. */
export function deliveryLine(d: Delivery): string {
  if (d.pending.length === 0) return `delivered to ${d.delivered.length > 0 ? d.delivered.join(', ') : 'nobody (no other reader)'}`;
  return `delivered to ${d.delivered.length > 0 ? d.delivered.join(', ') : 'nobody yet'}; still pending: ${d.pending.join(', ')}`;
}
