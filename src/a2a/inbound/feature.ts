// The inbound A2A gateway (#42 part 2, docs/a2a.md "Inbound") as a feature: the network's agent
// card and one per agent that opted in (server.a2a.agents), and each such agent at its base URL
// /v1/a2a/agents/{id} for A2A 1.0's JSON-RPC and HTTP+JSON bindings, through `@a2a-js/sdk`'s
// request handler. A task's message is a svc message; its states follow svc's events, which
// this feature observes (tracker.ts); tasks are rows of the store's key/value table, so any
// instance on one store reads them back. The SDK loads with the first request (runtime.ts).

import type { FeatureFactory } from '../../feature.js';
import { baseUrlOf } from '../../discovery/base-url.js';
import { gatewayRoutes } from './routes.js';
import type { A2aRuntime } from './runtime.js';
import { TaskTracker } from './tracker.js';

export const a2aInboundFeature: FeatureFactory = (app) => {
  const { ctx } = app;
  const tracker = new TaskTracker(() => ctx.config.network.id);
  let runtime: Promise<A2aRuntime> | undefined;
  let closed = false;

  return {
    routes: gatewayRoutes({
      runtime: () => (runtime ??= import('./runtime.js').then((m) => new m.A2aRuntime(ctx, tracker))),
      base: (req) =>
        baseUrlOf(req.headers, Boolean((req.socket as { encrypted?: boolean }).encrypted), app.address() ?? { host: '127.0.0.1', port: 0 }),
      push: true,
    }),
    observe: { event: (e) => tracker.observe(e) },
    close: async () => {
      if (closed) return;
      closed = true;
      if (runtime) (await runtime).close();
    },
  };
};
