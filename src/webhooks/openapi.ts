// The OpenAPI notes of the webhooks feature's routes (#28 parts 3 and 4; routes.ts), kept apart
// from the handlers as operations.ts keeps the core's; feature.ts joins them to the routes, so
// the notes are served exactly when the routes are.

import { ID, ok, type OperationDoc, ref } from '../http/openapi/op-doc.js';

/** Per-route notes by "METHOD /path" (the router's spelling). */
export const WEBHOOK_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  // Webhooks (#28 parts 3 and 4; src/webhooks/routes.ts).
  'GET /v1/webhooks': {
    tag: 'webhooks',
    summary: 'The outbound webhooks and inbound hooks of svc.yaml, with where each outbox stands (admin).',
    responses: ok({
      type: 'object',
      required: ['webhooks', 'inbound_hooks'],
      properties: { webhooks: { type: 'array', items: ref('Webhook') }, inbound_hooks: { type: 'array', items: ref('InboundHook') } },
    }),
  },
  'GET /v1/webhooks/:webhook_id/deliveries': {
    tag: 'webhooks',
    summary: "A webhook's deliveries, newest first (admin).",
    query: [
      { name: 'status', description: 'Only deliveries in this state.', schema: { enum: ['pending', 'delivered', 'dead'] } },
      { name: 'limit', description: 'At most this many, 1 to 1000; default 100.', schema: { type: 'integer', minimum: 1 } },
    ],
    responses: ok({
      type: 'object',
      required: ['deliveries'],
      properties: { deliveries: { type: 'array', items: ref('WebhookDelivery') } },
    }),
    errors: [422],
  },
  'POST /v1/webhooks/:webhook_id/retry': {
    tag: 'webhooks',
    summary: 'Queue dead-lettered deliveries again, with a new retry window (admin).',
    query: [{ name: 'delivery_id', description: 'Only this delivery (it must be dead); default: every dead one.', schema: ID }],
    responses: ok({ type: 'object', required: ['retried'], properties: { retried: { type: 'array', items: { type: 'string' } } } }),
    errors: [409],
  },
  'POST /v1/webhooks/:webhook_id/test': {
    tag: 'webhooks',
    summary: 'Queue a `webhook.test` delivery through the outbox (admin).',
    responses: ok({ type: 'object', required: ['delivery'], properties: { delivery: ref('WebhookDelivery') } }, 'Queued.'),
  },
  'POST /v1/hooks/:hook_id': {
    tag: 'webhooks',
    summary: "Post a message into an inbound hook's room as its sender.",
    description:
      "Authenticated by the hook's secret: `Authorization: Bearer <secret>`, or a Standard Webhooks signature " +
      '(`webhook-id`, `webhook-timestamp`, `webhook-signature`) made with it. Body: `{"text": "..."}` or `{"parts": [...]}`, ' +
      'optionally with a message `id` for retries. A wrong secret (or an unknown hook) is 401 and counts toward the ' +
      'failed-authentication limit of the client address.',
    responses: ok('SendResponse', 'Sent.'),
    errors: [400, 403, 404, 409, 429],
  },
};
