// The webhook outbox's write intents, their outcomes and the effects they resolve to (decide.ts).
// Enqueueing moves the cursor and stores the new deliveries in one atomic write, so an event is
// either behind the cursor with its delivery stored or ahead of it and read again after a crash:
// none is lost, none is queued twice (a delivery's id is derived from the webhook and the event).

import type { WebhookDelivery } from './records.js';

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

export type WebhookOp = WebhookEnqueueOp | WebhookDeliveryOp;

/** What an outbox op did (nothing to tell but that it was written). */
export type WebhookOutcome = { op: 'webhook.enqueue' } | { op: 'webhook.delivery' };

/** What the outbox ops do to stored state: `add` keeps a delivery already stored, `put` replaces it. */
export type WebhookEffect =
  | { op: 'webhook.cursor.put'; webhook_id: string; seq: number }
  | { op: 'webhook.delivery.add'; delivery: WebhookDelivery }
  | { op: 'webhook.delivery.put'; delivery: WebhookDelivery };

export const isWebhookEffect = (e: { op: string }): e is WebhookEffect =>
  e.op === 'webhook.cursor.put' || e.op === 'webhook.delivery.add' || e.op === 'webhook.delivery.put';

// This concern's row of the store's op, outcome and effect unions (part.ts, PartTypes).
declare module '../part.js' {
  interface PartTypes {
    webhooks: { op: WebhookOp; outcome: WebhookOutcome; effect: WebhookEffect };
  }
}
