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
import { hasOpenTask } from './open-tasks.js';
import { TaskTracker } from './tracker.js';
import type { StoredEvent } from '../../store/types.js';

export const a2aInboundFeature: FeatureFactory = (app) => {
  const { ctx } = app;
  const tracker = new TaskTracker(() => ctx.config.network.id);
  let runtime: Promise<A2aRuntime> | undefined;
  const load = () => (runtime ??= import('./runtime.js').then((m) => new m.A2aRuntime(ctx, tracker)));
  /** The resumer's observer while it catches up (resume.ts). */
  let resuming: ((e: StoredEvent) => void) | undefined;
  let closed = false;
  let resumed: Promise<void> | undefined;
  const base = () => baseUrlOf({}, false, app.address() ?? { host: '127.0.0.1', port: 0 });

  /** Tasks a stopped instance left open are taken up here (the SDK loads only when there are some). */
  const resume = async () => {
    if (!(await hasOpenTask(ctx.store.kv)) || closed) return;
    const rt = await load();
    if (closed) return;
    const r = rt.resume(base);
    resuming = r.observe;
    await r.done;
  };

  return {
    routes: gatewayRoutes({
      runtime: load,
      base: (req) =>
        baseUrlOf(req.headers, Boolean((req.socket as { encrypted?: boolean }).encrypted), app.address() ?? { host: '127.0.0.1', port: 0 }),
      push: true,
    }),
    observe: {
      event: (e) => {
        tracker.observe(e);
        resuming?.(e);
      },
    },
    started: () => {
      resumed = resume().catch((err: unknown) =>
        ctx.log('warn', 'a2a: open tasks could not be resumed', { error: String((err as Error)?.message ?? err) }),
      );
    },
    close: async () => {
      if (closed) return;
      closed = true;
      if (runtime) (await runtime).close();
      await resumed;
    },
  };
};
