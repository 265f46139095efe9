// GET /v1/agents/{agent_id}/delivery: one agent's delivery (docs/live.md, Delivery an operator can
// see), with its OpenAPI notes. For the agent itself, its owner and operators; a caller who may not
// see the agent gets what an unknown id gets (404), one who may see it but is none of these 403.

import { forbidden } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { mayAssertAgent } from '../auth/principal.js';
import { getAgent } from '../network/agents.js';
import type { NetworkContext } from '../network/context.js';
import { ok } from '../http/openapi/op-doc.js';
import type { Route } from '../http/router.js';
import type { DeliveryState } from './state.js';
import type { DeliveryStatus } from '../protocol/delivery.js';
import { deliveryStatus } from './view.js';

/** Whether `p` may read the delivery of agent `id`, registered by `owner`. */
export function mayReadDelivery(p: Principal, id: string, owner: string | undefined): boolean {
  if (p.kind === 'trusted') return true;
  if (p.kind === 'agent') return p.agentId === id;
  if (p.kind !== 'static') return false;
  if (p.scopes.has('admin')) return true;
  if (owner !== undefined && p.credentialKey === owner) return true;
  // An operator: a write-capable static token that may act as the agent.
  return p.scopes.has('write') && mayAssertAgent(p, id);
}

/** One agent's delivery as `p` may read it. */
export async function agentDelivery(ctx: NetworkContext, state: DeliveryState, p: Principal, id: string): Promise<DeliveryStatus> {
  await getAgent(ctx, p, id);
  const rec = await ctx.store.getAgent(id);
  if (!mayReadDelivery(p, id, rec?.credential_key))
    throw forbidden(`only agent ${id} itself, the credential that registered it and operators read its delivery`);
  return deliveryStatus(id, await state.rowsOf(id), Date.now());
}

const TIME_OR_NULL = { type: ['string', 'null'], format: 'date-time' };

const WAKE = {
  type: 'object',
  required: ['message_id', 'reason', 'target', 'cursor', 'first_offered_at', 'last_offered_at', 'offers'],
  properties: {
    message_id: { type: 'string' },
    reason: { enum: ['mention', 'dm'] },
    target: { type: 'object' },
    cursor: { type: 'string', description: 'The EVENT cursor the wake was sent with; a re-sent wake has the same one.' },
    first_offered_at: { type: 'string', format: 'date-time' },
    last_offered_at: { type: 'string', format: 'date-time' },
    offers: { type: 'integer', minimum: 1 },
    gave_up_at: {
      type: 'string',
      format: 'date-time',
      description: 'Redelivery stopped (server.delivery.max_offers); it stays until acknowledged.',
    },
  },
};

export const DELIVERY_SCHEMA = {
  type: 'object',
  required: [
    'agent_id',
    'attached',
    'attachments',
    'pending_wakes',
    'oldest_pending_at',
    'oldest_pending_seconds',
    'gave_up',
    'last_ack_at',
    'last_read_at',
    'wakes',
  ],
  properties: {
    agent_id: { type: 'string' },
    attached: { type: 'boolean' },
    attachments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['by', 'since'],
        properties: {
          by: { enum: ['runtime', 'agent_run', 'mcp', 'mcp_wait'] },
          client: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
        },
      },
    },
    pending_wakes: { type: 'integer', minimum: 0 },
    oldest_pending_at: TIME_OR_NULL,
    oldest_pending_seconds: { type: ['integer', 'null'], minimum: 0 },
    gave_up: { type: 'integer', minimum: 0 },
    last_ack_at: TIME_OR_NULL,
    last_read_at: TIME_OR_NULL,
    wakes: { type: 'array', items: WAKE },
  },
};

export const deliveryRoutes = (state: DeliveryState): Route[] => [
  {
    method: 'GET',
    path: '/v1/agents/:agent_id/delivery',
    action: 'topology.get',
    doc: {
      tag: 'agents',
      summary: "An agent's delivery: what holds its attachment, its wakes not acknowledged, its last ACK and read.",
      description:
        'For the agent itself (its token), the credential that registered it, and operators (admin, or a write token that may act as it); 404 when the caller may not see the agent, 403 when it may but is none of these. Read from the store: the same answer from every instance. See docs/live.md.',
      responses: ok(DELIVERY_SCHEMA),
    },
    handler: async ({ ctx, principal, params }) => ({ body: await agentDelivery(ctx, state, principal, params.agent_id!) }),
  },
];
