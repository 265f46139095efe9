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
      const engine = ctx.store.engine;
      return { body: { status: 'ready', ...(engine ? { store: { backend: ctx.store.backend, ...engine } } : {}) } };
    },
  },
];
