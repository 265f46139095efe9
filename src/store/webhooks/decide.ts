// The webhook outbox's part of the resolver (intents.ts). Its ops are decided on no stored state:
// an enqueue adds what is not stored (the backend keeps a stored id as it is) and only the lease
// holder replaces a delivery, so there is nothing to read first and nothing for a batch to lay over.

import type { CoreView, Overlaid, Put } from '../part.js';
import type { WebhookEffect, WebhookOp, WebhookOutcome } from './ops.js';

/** What outbox ops are decided on: nothing. */
export type OutboxState = Record<never, never>;

export const NO_STATE: OutboxState = {};

export function decideOutbox(_core: CoreView, _state: OutboxState, op: WebhookOp, put: Put<WebhookEffect>): WebhookOutcome {
  if (op.op === 'webhook.enqueue') {
    put({ op: 'webhook.cursor.put', webhook_id: op.webhook_id, seq: op.seq });
    for (const delivery of op.deliveries) put({ op: 'webhook.delivery.add', delivery });
    return { op: 'webhook.enqueue' };
  }
  put({ op: 'webhook.delivery.put', delivery: op.delivery });
  return { op: 'webhook.delivery' };
}

/** Later ops of a batch read nothing, so the overlay keeps nothing. */
export const outboxOverlay = (base: OutboxState): Overlaid<OutboxState, WebhookEffect> => ({ ...base, note: () => {} });
