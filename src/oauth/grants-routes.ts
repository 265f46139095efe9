// The admin routes over OAuth grants: list them, revoke one (grants.ts).

import { notFound } from '../errors.js';
import type { Route } from '../http/router.js';
import { listGrants, revokeGrant } from './grants.js';

/** GET /v1/oauth/grants and DELETE /v1/oauth/grants/:grant_id (admin). */
export const grantRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/oauth/grants',
    action: 'admin',
    handler: async ({ ctx }) => ({ body: { grants: await listGrants(ctx.store.kv) } }),
  },
  {
    method: 'DELETE',
    path: '/v1/oauth/grants/:grant_id',
    action: 'admin',
    handler: async ({ ctx, params }) => {
      const id = params.grant_id!;
      if (!(await revokeGrant(ctx.store.kv, id))) throw notFound(`grant ${id}`);
      return { body: { revoked: true, id } };
    },
  },
];
