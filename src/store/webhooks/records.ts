// What the webhook outbox stores (#28 part 3, outbound webhooks): a cursor per webhook over the
// event log and the deliveries made from it, as the store's readers and writers see them.

import type { DeliveryStatus, WebhookDeliveryView } from '../../protocol/webhooks.js';

export type { DeliveryStatus } from '../../protocol/webhooks.js';

/** One event (or test) to POST to one webhook, with its retry state: the API's view and the body. */
export interface WebhookDelivery extends WebhookDeliveryView {
  /** The exact JSON body that is signed and POSTed. */
  payload: string;
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

/** What the outbox part offers to readers (`store.part(webhooksPart)`). */
export interface WebhookReads {
  /** Where a webhook's outbox cursor stands (undefined: never set). */
  cursor(webhookId: string): Promise<number | undefined>;
  /** A webhook's deliveries, as the query says. */
  deliveries(q: DeliveryQuery): Promise<WebhookDelivery[]>;
  /** A webhook's pending and dead counts and its earliest pending times. */
  stats(webhookId: string): Promise<DeliveryStats>;
}
