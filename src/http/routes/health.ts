import { AppError } from '../../errors.js';
import type { Route } from '../router.js';

export const healthRoutes: Route[] = [
  { method: 'GET', path: '/healthz', handler: () => ({ body: { status: 'ok' } }) },
  {
    method: 'GET',
    path: '/readyz',
    handler: async ({ net }) => {
      if (!(await net.store.ping())) throw new AppError('service_unavailable', 'the store is not ready');
      return { body: { status: 'ready' } };
    },
  },
];
