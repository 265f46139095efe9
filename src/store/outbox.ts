// The webhook outbox's part of the store contract (#28 part 3, outbound webhooks): a cursor per
// webhook over the event log and the deliveries made from it. Enqueueing moves the cursor and stores
// the new deliveries in one atomic write, so an event is either behind the cursor with its delivery
// stored or ahead of it and read again after a crash: none is lost, none is queued twice (a
// delivery's id is derived from the webhook and the event). Re-exported by ./types.js.

/** pending: to be tried (again) at `next_attempt_at`; delivered: the target answered 2xx; dead: the retry window ran out. */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** One event (or test) to POST to one webhook, with its retry state. */
export interface WebhookDelivery {
  /** The `webhook-id` header: the same on every attempt, so receivers can deduplicate. */
  id: string;
  webhook_id: string;
  /** The event's sequence number (the cursor's value when it was queued, for a test). */
  seq: number;
  event_type: string;
  /** The exact JSON body that is signed and POSTed. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: string;
  /** When the retry window began (the first attempt, or a manual retry). */
  window_start?: string;
  next_attempt_at: string;
  last_attempt_at?: string;
  delivered_at?: string;
  /** The HTTP status of the last attempt, when the target answered. */
  last_status?: number;
  last_error?: string;
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
  /** oldest: by seq, then id (delivery order); newest: the reverse. */
  order: 'oldest' | 'newest';
  limit: number;
}

/** Orders and limits deliveries as DeliveryQuery says (the in-process backends' listing). */
export function pickDeliveries(all: Iterable<WebhookDelivery>, q: DeliveryQuery): WebhookDelivery[] {
  const out: WebhookDelivery[] = [];
  for (const d of all) {
    if (d.webhook_id !== q.webhook_id) continue;
    if (q.status !== undefined && d.status !== q.status) continue;
    if (q.id !== undefined && d.id !== q.id) continue;
    out.push(d);
  }
  out.sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (q.order === 'newest') out.reverse();
  return out.slice(0, q.limit);
}
