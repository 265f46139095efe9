// The webhook outbox as one store part (part.ts): its ops, its effects, and its adapters. Kept by
// the webhooks feature (src/webhooks/feature.ts); not copied by `svc store copy` (a copied network
// starts its webhooks' cursors afresh, as it did before the part).

import type { StorePart } from '../part.js';
import { decideOutbox, outboxOverlay, type OutboxState } from './decide.js';
import { MemoryWebhooks } from './memory.js';
import { isWebhookEffect, type WebhookEffect, type WebhookOp, type WebhookOutcome } from './ops.js';
import { postgresWebhooks } from './postgres.js';
import type { WebhookReads } from './records.js';
import { sqliteWebhooks } from './sqlite.js';

export const webhooksPart: StorePart<WebhookOp, WebhookOutcome, WebhookEffect, OutboxState, WebhookReads> = {
  name: 'webhooks',
  ops: ['webhook.enqueue', 'webhook.delivery'],
  owns: isWebhookEffect,
  needs: () => ({}),
  decide: decideOutbox,
  overlay: outboxOverlay,
  memory: () => new MemoryWebhooks(),
  sqlite: sqliteWebhooks,
  postgres: postgresWebhooks,
};
