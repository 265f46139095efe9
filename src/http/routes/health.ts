import { AppError } from '../../errors.js';
import type { Route } from '../router.js';

export const healthRoutes: Route[] = [
  { method: 'GET', path: '/healthz', handler: () => ({ body: { status: 'ok' } }) },
  {
    method: 'GET',
    path: '/readyz',
    handler: async ({ net }) => {
      if (!(await net.store.ping())) throw new AppError('service_unavailable', 'the store is not ready');
      // The embedded engine's mode (sqlite page tracking), so an operator sees a silent fallback.
      const engine = net.store.engine;
      return { body: { status: 'ready', ...(engine ? { store: { backend: net.store.backend, ...engine } } : {}) } };
    },
  },
];
