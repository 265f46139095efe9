import { AppError } from '../../errors.js';
import type { Route } from '../router.js';

export const healthRoutes: Route[] = [
  { method: 'GET', path: '/healthz', handler: () => ({ body: { status: 'ok' } }) },
  {
    method: 'GET',
    path: '/readyz',
    handler: async ({ ctx }) => {
      if (!(await ctx.store.ping())) throw new AppError('service_unavailable', 'the store is not ready');
      // The embedded engine's mode (sqlite page tracking), so an operator sees a silent fallback.
      // A redaction's scrub still under way (sqlite), so an operator knows when it is complete.
      const engine = ctx.store.engine;
      const scrub = ctx.store.scrubPending?.();
      const store = engine
        ? { backend: ctx.store.backend, ...engine, ...(scrub !== undefined ? { redaction_scrub: scrub ? 'pending' : 'done' } : {}) }
        : undefined;
      return { body: { status: 'ready', ...(store ? { store } : {}) } };
    },
  },
];
