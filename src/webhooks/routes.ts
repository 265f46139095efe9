// The webhook routes: the admin API behind `svc webhooks` (list, deliveries, retry, test) and
// the inbound hook endpoint POST /v1/hooks/{id}.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { InboundHookConfig, WebhookConfig } from '../config/webhooks.js';
import { AppError, notFound } from '../errors.js';
import type { Route } from '../http/router.js';
import { sendMessage } from '../network/messages.js';
import type { HookSource, WebhookDeliveryView } from '../protocol/webhooks.js';
import type { Store } from '../store/types.js';
import type { DeliveryStatus, WebhookDelivery } from '../store/webhooks/records.js';
import { payloadOf } from './events.js';
import { hookPrincipal, hookSecretOk, hookSend } from './inbound.js';
import { outboxOf } from './stored.js';

export interface WebhookRoutesDeps {
  store: () => Store;
  /** Settles once the applied hooks were first read from the store. */
  loaded: () => Promise<void>;
  /** Where a hook is declared. */
  sourceOf: (kind: 'webhook' | 'inbound_hook', id: string) => HookSource;
  webhooks: () => readonly WebhookConfig[];
  inbound: () => readonly InboundHookConfig[];
  /** Wakes the webhook's worker (a delivery was queued or retried). */
  kick: (id: string) => void;
  /** Counts a refused hook secret toward the address's failed-authentication limit (throws 429 past it). */
  failedAuth: (req: IncomingMessage) => void;
}

/** A retry of every dead delivery queues up to this many at once. */
const RETRY_BATCH = 1000;
const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];

/** A delivery as the API shows it: everything but the payload. */
export function deliveryView(d: WebhookDelivery): WebhookDeliveryView {
  const { payload: _p, ...rest } = d;
  return rest;
}

export function webhookRoutes(deps: WebhookRoutesDeps): Route[] {
  const hookOf = async (id: string): Promise<WebhookConfig> => {
    await deps.loaded();
    const w = deps.webhooks().find((x) => x.id === id);
    if (!w) throw notFound(`webhook ${id}`);
    return w;
  };

  const counts = async (id: string) => {
    const s = await outboxOf(deps.store()).stats(id);
    return { pending: s.pending, dead: s.dead };
  };

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/v1/webhooks',
      action: 'admin',
      handler: async () => {
        await deps.loaded();
        const webhooks = await Promise.all(
          deps.webhooks().map(async (w) => ({
            id: w.id,
            url: w.url,
            events: w.events,
            ...(w.rooms ? { rooms: w.rooms } : {}),
            allow_private_network: w.allow_private_network,
            cursor: (await outboxOf(deps.store()).cursor(w.id)) ?? null,
            // The store's true counts, as the worker's svc_webhook_pending gauge shows them.
            ...(await counts(w.id)),
            source: deps.sourceOf('webhook', w.id),
          })),
        );
        const inbound_hooks = deps.inbound().map((h) => ({
          id: h.id,
          room: h.room,
          sender: h.sender,
          ...(h.sender_name ? { sender_name: h.sender_name } : {}),
          path: `/v1/hooks/${h.id}`,
          source: deps.sourceOf('inbound_hook', h.id),
        }));
        return { body: { webhooks, inbound_hooks } };
      },
    },
    {
      method: 'GET',
      path: '/v1/webhooks/:webhook_id/deliveries',
      action: 'admin',
      handler: async ({ params, url }) => {
        const w = await hookOf(params.webhook_id!);
        const status = url.searchParams.get('status') ?? undefined;
        if (status !== undefined && !STATUSES.includes(status as DeliveryStatus))
          throw new AppError('unprocessable_entity', `status: must be one of ${STATUSES.join(', ')}`);
        const limitText = url.searchParams.get('limit');
        const limit = limitText === null ? 100 : Number(limitText);
        if (!Number.isInteger(limit) || limit < 1) throw new AppError('unprocessable_entity', 'limit: must be a positive integer');
        const list = await outboxOf(deps.store()).deliveries({
          webhook_id: w.id,
          ...(status ? { status: status as DeliveryStatus } : {}),
          order: 'newest',
          limit: Math.min(limit, 1000),
        });
        return { body: { deliveries: list.map(deliveryView) } };
      },
    },
    {
      method: 'POST',
      path: '/v1/webhooks/:webhook_id/retry',
      action: 'admin',
      handler: async ({ params, url }) => {
        const w = await hookOf(params.webhook_id!);
        const one = url.searchParams.get('delivery_id') ?? undefined;
        const dead = await outboxOf(deps.store()).deliveries({
          webhook_id: w.id,
          status: 'dead',
          order: 'oldest',
          limit: RETRY_BATCH,
          ...(one ? { id: one } : {}),
        });
        if (one && dead.length === 0) {
          const any = await outboxOf(deps.store()).deliveries({ webhook_id: w.id, id: one, order: 'oldest', limit: 1 });
          if (any.length === 0) throw notFound(`delivery ${one} of webhook ${w.id}`);
          throw new AppError('conflict', `delivery ${one} is ${any[0]!.status}, not dead: only dead deliveries are retried`);
        }
        const at = new Date().toISOString();
        // A dead delivery is no worker's any more, so this write races with none; it gets a new window.
        const ops = dead.map((d) => ({
          op: 'webhook.delivery' as const,
          delivery: { ...d, status: 'pending' as const, attempts: 0, window_start: at, next_attempt_at: at },
        }));
        if (ops.length > 0) await deps.store().write(ops);
        deps.kick(w.id);
        return { body: { retried: ops.map((o) => o.delivery.id) } };
      },
    },
    {
      method: 'POST',
      path: '/v1/webhooks/:webhook_id/test',
      action: 'admin',
      handler: testHandler(deps, hookOf),
    },
    {
      method: 'POST',
      path: '/v1/hooks/:hook_id',
      ownCredential: true,
      // Read, bounded and parsed by the edge like every body (the depth check included): the
      // signature covers the bytes it came from. A malformed body is refused before the secret
      // is judged, the same for every hook id, so ids still cannot be probed.
      body: { kind: 'json' },
      handler: async ({ req, params, ctx, body, bodyBytes }) => {
        await deps.loaded();
        const hook = deps.inbound().find((h) => h.id === params.hook_id);
        // An unknown hook answers as a wrong secret does: ids cannot be probed.
        if (!hook || !hookSecretOk(hook, req, bodyBytes ?? Buffer.alloc(0))) {
          deps.failedAuth(req);
          throw new AppError('unauthorized', 'the hook secret is missing or wrong');
        }
        const sent = await sendMessage(ctx, hookPrincipal(hook), hookSend(hook, body));
        return { body: sent };
      },
    },
  ];
  return routes;
}

/** Queues a `webhook.test` delivery through the outbox, as any event's. */
function testHandler(deps: WebhookRoutesDeps, hookOf: (id: string) => Promise<WebhookConfig>): Route['handler'] {
  return async ({ params, ctx }) => {
    const w = await hookOf(params.webhook_id!);
    const at = new Date().toISOString();
    const id = `wh_${w.id}_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const delivery: WebhookDelivery = {
      id,
      webhook_id: w.id,
      seq: (await outboxOf(deps.store()).cursor(w.id)) ?? 0,
      event_type: 'webhook.test',
      payload: payloadOf('webhook.test', at, { network_id: ctx.config.network.id, webhook_id: w.id }),
      status: 'pending',
      attempts: 0,
      created_at: at,
      window_start: at,
      next_attempt_at: at,
    };
    await deps.store().write([{ op: 'webhook.delivery', delivery }]);
    deps.kick(w.id);
    return { body: { delivery: deliveryView(delivery) } };
  };
}
