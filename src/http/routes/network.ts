import { networkDocument } from '../../network/document.js';
import type { Route } from '../router.js';

export const networkRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/network',
    action: 'network.read',
    handler: ({ ctx, principal }) => ({ body: networkDocument(ctx, principal) }),
  },
];
