// The webhooks feature (#28 parts 3 and 4): a worker per outbound webhook (reconciled on reload,
// on `svc apply` and when another instance applied hooks, woken by each published event), the
// admin routes behind `svc webhooks`, the inbound hook endpoint, and the hooks part of POST
// /v1/apply. svc.yaml's secrets come from the environment at config load (config/webhooks.ts);
// applied ones from the store (applied.ts).

import type { WebhookConfig } from '../config/webhooks.js';
import { type App, type Feature, storing, type FeatureFactory } from '../feature.js';
import type { Resolve } from '../http/outbound.js';
import { hooksPart } from '../store/webhooks/applied/part.js';
import { webhooksPart } from '../store/webhooks/part.js';
import { documented } from '../http/openapi/op-doc.js';
import { baseUrlOf } from '../discovery/base-url.js';
import { AppliedHooks } from './applied.js';
import { webhookMetrics } from './metrics.js';
import { WEBHOOK_OPERATIONS } from './openapi.js';
import { webhookRoutes } from './routes.js';
import { WebhookWorker } from './worker.js';

/** The webhooks feature whose workers resolve target names with `resolve` (a test's own resolver). */
export const webhooksResolving = (resolve: Resolve | undefined): FeatureFactory =>
  storing([webhooksPart, hooksPart], (app) => webhooks(app, resolve));

export const webhooksFeature: FeatureFactory = webhooksResolving(undefined);

function webhooks(app: App, resolve: Resolve | undefined): Feature {
  const ctx = app.ctx;
  const metrics = webhookMetrics(app.metrics.registry);
  const workers = new Map<string, WebhookWorker>();
  let started = false;
  // Read when the app is made (tests shorten them): how often an idle worker polls, and how often
  // the hooks applied through another instance are read again (ms).
  const POLL_MS = Number(process.env.SVC_WEBHOOK_POLL_MS) || undefined;
  const APPLIED_POLL_MS = Number(process.env.SVC_APPLIED_HOOKS_POLL_MS) || 5_000;

  const make = (w: WebhookConfig) =>
    new WebhookWorker(w, {
      store: ctx.store,
      metrics,
      log: (level, msg, fields) => ctx.log(level, msg, fields),
      ...(POLL_MS ? { pollMs: POLL_MS } : {}),
      filesBase: () => {
        const a = app.address();
        return a ? baseUrlOf({}, false, a) : undefined;
      },
      ...(resolve ? { resolve } : {}),
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
  const applied = new AppliedHooks(
    () => ctx.store,
    () => ctx.config,
    () => void reconcile(applied.allWebhooks()),
  );
  const warn = (err: unknown) => ctx.log('warn', 'could not read the applied hooks', { error: String(err) });
  const loaded = applied.refresh().catch(warn);
  void reconcile(ctx.config.webhooks);
  let poll: NodeJS.Timeout | undefined;

  return {
    routes: documented(
      webhookRoutes({
        store: () => ctx.store,
        loaded: () => loaded,
        webhooks: () => applied.allWebhooks(),
        inbound: () => applied.allInbound(),
        sourceOf: (kind, id) => applied.sourceOf(kind, id),
        kick: (id) => workers.get(id)?.kick(),
        failedAuth: (req) => app.http.admit?.(req, undefined, true),
      }),
      WEBHOOK_OPERATIONS,
    ),
    apply: { check: (req) => applied.check(req), apply: (req) => applied.apply(req) },
    // A hook's sender is the operator's: a stranger registering it would take the hook's messages over.
    reservedAgents: () => applied.allInbound().map((h) => ({ id: h.sender, namedAs: 'the sender of an inbound hook' })),
    started: () => {
      started = true;
      for (const w of workers.values()) w.start();
      poll = setInterval(() => void applied.refresh().catch(warn), APPLIED_POLL_MS);
      poll.unref();
    },
    observe: {
      event: () => {
        for (const w of workers.values()) w.kick();
      },
    },
    reloaded: () => {
      void reconcile(applied.allWebhooks());
    },
    close: async () => {
      started = false;
      clearInterval(poll);
      await Promise.all([...workers.values()].map((w) => w.close()));
      workers.clear();
    },
  };
}
