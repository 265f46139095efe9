import { applyRequest } from '../../network/apply.js';
import type { ApplyRequest } from '../../protocol/types.js';
import type { Route } from '../router.js';

export const applyRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/apply',
    action: 'admin',
    schema: 'apply',
    handler: async ({ ctx, body }) => ({ body: await applyRequest(ctx, body as ApplyRequest) }),
  },
];
