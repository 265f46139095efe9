// The webhook outbox in the in-memory backend: cursors and deliveries by id, listed and counted in
// JavaScript as the SQL backends do through their indexes.

import type { Message } from '../../protocol/types.js';
import type { MemoryAdapter } from '../part.js';
import { NO_STATE, type OutboxState } from './decide.js';
import type { WebhookEffect } from './ops.js';
import type { DeliveryQuery, DeliveryStats, WebhookDelivery, WebhookReads } from './records.js';

export class MemoryWebhooks implements MemoryAdapter<WebhookEffect, OutboxState, WebhookReads> {
  private readonly cursors = new Map<string, number>();
  private readonly byId = new Map<string, WebhookDelivery>();

  // The backend hands over a copy of each effect: it may be kept as it is.
  apply(e: WebhookEffect): void {
    if (e.op === 'webhook.cursor.put') this.cursors.set(e.webhook_id, e.seq);
    else {
      // A put keeps the payload added (a redaction may have rewritten it since the worker read it: scrub).
      const had = this.byId.get(e.delivery.id);
      if (!had) this.byId.set(e.delivery.id, e.delivery);
      else if (e.op === 'webhook.delivery.put') this.byId.set(e.delivery.id, { ...e.delivery, payload: had.payload });
    }
  }

  scrub(messageId: string, tombstone: Message): void {
    for (const d of this.byId.values()) {
      const p = JSON.parse(d.payload) as { data?: { message?: { id?: string } } };
      if (p.data?.message?.id !== messageId) continue;
      p.data.message = tombstone;
      d.payload = JSON.stringify(p);
    }
  }

  readonly state: OutboxState = NO_STATE;

  readonly reads: WebhookReads = {
    cursor: async (id) => this.cursors.get(id),
    deliveries: async (q) => pickDeliveries(this.byId.values(), q).map((d) => structuredClone(d)),
    stats: async (id) => countDeliveries(this.byId.values(), id),
  };
}

const byId = (a: WebhookDelivery, b: WebhookDelivery) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Orders and limits deliveries as DeliveryQuery says. */
export function pickDeliveries(all: Iterable<WebhookDelivery>, q: DeliveryQuery): WebhookDelivery[] {
  const out: WebhookDelivery[] = [];
  for (const d of all) {
    if (d.webhook_id !== q.webhook_id) continue;
    if (q.status !== undefined && d.status !== q.status) continue;
    if (q.id !== undefined && d.id !== q.id) continue;
    if (q.due_by !== undefined && d.next_attempt_at > q.due_by) continue;
    out.push(d);
  }
  if (q.order === 'due') out.sort((a, b) => byTime(a.next_attempt_at, b.next_attempt_at) || a.seq - b.seq || byId(a, b));
  else out.sort((a, b) => a.seq - b.seq || byId(a, b));
  if (q.order === 'newest') out.reverse();
  return out.slice(0, q.limit);
}

/** Counts a webhook's deliveries as DeliveryStats says. */
export function countDeliveries(all: Iterable<WebhookDelivery>, webhookId: string): DeliveryStats {
  const s: DeliveryStats = { pending: 0, dead: 0 };
  let first: WebhookDelivery | undefined;
  for (const d of all) {
    if (d.webhook_id !== webhookId) continue;
    if (d.status === 'dead') s.dead++;
    if (d.status !== 'pending') continue;
    s.pending++;
    if (s.next_attempt_at === undefined || d.next_attempt_at < s.next_attempt_at) s.next_attempt_at = d.next_attempt_at;
    if (first === undefined || d.seq < first.seq || (d.seq === first.seq && d.id < first.id)) first = d;
  }
  if (first) s.oldest_pending_at = first.created_at;
  return s;
}
