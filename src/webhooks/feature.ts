// The webhooks feature (#28 parts 3 and 4): a worker per outbound webhook (reconciled on reload,
// woken by each published event), the admin routes behind `svc webhooks`, and the inbound hook
// endpoint. Hook secrets come from the environment at config load (config/webhooks.ts).

import type { WebhookConfig } from '../config/webhooks.js';
import type { FeatureFactory } from '../feature.js';
import { webhookMetrics } from './metrics.js';
import { webhookRoutes } from './routes.js';
import { WebhookWorker } from './worker.js';

/** Test hook: how often an idle worker polls (ms). */
const POLL_MS = Number(process.env.SVC_WEBHOOK_POLL_MS) || undefined;

export const webhooksFeature: FeatureFactory = (app) => {
  const ctx = app.ctx;
  const metrics = webhookMetrics(app.metrics.registry);
  const workers = new Map<string, WebhookWorker>();
  let started = false;

  const make = (w: WebhookConfig) =>
    new WebhookWorker(w, {
      store: ctx.store,
      metrics,
      log: (level, msg, fields) => ctx.log(level, msg, fields),
      ...(POLL_MS ? { pollMs: POLL_MS } : {}),
    });

  const reconcile = async (list: readonly WebhookConfig[]): Promise<void> => {
    const wanted = new Map(list.map((w) => [w.id, w]));
    for (const [id, worker] of workers) {
      const next = wanted.get(id);
      if (next && JSON.stringify(next) === JSON.stringify(worker.hook)) continue;
      workers.delete(id);
      await worker.close();
    }
    for (const [id, w] of wanted) {
      if (workers.has(id)) continue;
      const worker = make(w);
      workers.set(id, worker);
      if (started) worker.start();
    }
  };
  void reconcile(ctx.config.webhooks);

  return {
    routes: webhookRoutes({
      store: () => ctx.store,
      webhooks: () => ctx.config.webhooks,
      inbound: () => ctx.config.inbound_hooks,
      kick: (id) => workers.get(id)?.kick(),
      failedAuth: (req) => app.http.admit?.(req, undefined, true),
    }),
    started: () => {
      started = true;
      for (const w of workers.values()) w.start();
    },
    observe: {
      event: () => {
        for (const w of workers.values()) w.kick();
      },
    },
    reloaded: (config) => {
      void reconcile(config.webhooks);
    },
    close: async () => {
      started = false;
      await Promise.all([...workers.values()].map((w) => w.close()));
      workers.clear();
    },
  };
};
