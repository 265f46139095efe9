// The webhook outbox's part of the store contract (#28 part 3, outbound webhooks): a cursor per
// webhook over the event log and the deliveries made from it. Enqueueing moves the cursor and stores
// the new deliveries in one atomic write, so an event is either behind the cursor with its delivery
// stored or ahead of it and read again after a crash: none is lost, none is queued twice (a
// delivery's id is derived from the webhook and the event). Re-exported by ./types.js.

import type { DeliveryStatus, WebhookDeliveryView } from '../protocol/webhooks.js';

export type { DeliveryStatus } from '../protocol/webhooks.js';

/** One event (or test) to POST to one webhook, with its retry state: the API's view and the body. */
export interface WebhookDelivery extends WebhookDeliveryView {
  /** The exact JSON body that is signed and POSTed. */
  payload: string;
}

/**
 * Moves a webhook's cursor to `seq` and stores `deliveries`; a delivery whose id is stored already
 * is left as it is.
 */
export interface WebhookEnqueueOp {
  op: 'webhook.enqueue';
  webhook_id: string;
  seq: number;
  deliveries: WebhookDelivery[];
}

/**
 * Stores a delivery's new state, whole: only the holder of the webhook's lease (`webhook:<id>`)
 * changes its deliveries, so the state it read is the state it replaces.
 */
export interface WebhookDeliveryOp {
  op: 'webhook.delivery';
  delivery: WebhookDelivery;
}

/**
 * A webhook or inbound hook declared by `svc apply` (#28), kept in the store so every instance on it
 * and a restart see it. `body` is the resolved declaration as JSON, secret included: the store holds
 * it as svc.yaml's environment holds the others.
 */
export interface AppliedHookRecord {
  kind: 'webhook' | 'inbound_hook';
  id: string;
  body: string;
  applied_at: string;
}

/** Stores applied hooks whole (a stored kind+id is replaced); `remove` deletes them by kind and id. */
export interface HooksApplyOp {
  op: 'hooks.apply';
  put: AppliedHookRecord[];
  remove?: { kind: AppliedHookRecord['kind']; id: string }[];
}

/** Applied hooks in the order every backend lists them: by kind, then id. */
export function sortHooks(list: AppliedHookRecord[]): AppliedHookRecord[] {
  const key = (h: AppliedHookRecord) => `${h.kind}\n${h.id}`;
  return list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Which deliveries a read returns. */
export interface DeliveryQuery {
  webhook_id: string;
  status?: DeliveryStatus;
  /** One delivery by id. */
  id?: string;
  /**
   * Only deliveries whose `next_attempt_at` is at or before this time (ISO, as stored): with
   * status pending, the ones due now. Read through an index on (webhook, status, next attempt), so
   * however many deliveries wait on a later retry, the due ones are found without reading those.
   */
  due_by?: string;
  /**
   * oldest: by seq, then id (delivery order); newest: the reverse; due: by next_attempt_at, then
   * seq and id (the longest due first; fresh deliveries of one event batch share a time, so they
   * keep event order).
   */
  order: 'oldest' | 'newest' | 'due';
  limit: number;
}

/** A webhook's outbox at a glance, counted by the store (no cap): gauges, the listing, the next wake-up. */
export interface DeliveryStats {
  pending: number;
  dead: number;
  /** The earliest `next_attempt_at` of a pending delivery. */
  next_attempt_at?: string;
  /** When the first pending delivery in seq order (the oldest queued) was created: the lag gauge. */
  oldest_pending_at?: string;
}

const byId = (a: WebhookDelivery, b: WebhookDelivery) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Orders and limits deliveries as DeliveryQuery says (the in-process backends' listing). */
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

/** Counts a webhook's deliveries as DeliveryStats says (the in-process backends' count). */
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
