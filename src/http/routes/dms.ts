import { dmMessages, getDm, listDms } from '../../network/history.js';
import { requireDirectMessages } from '../../network/access.js';
import { windowOf } from '../query.js';
import type { Route } from '../router.js';

// DMs off answers 403 whoever asks, once an invalid Authorization header has had its 401 (precheck).
export const dmRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/dms',
    action: 'dm.read',
    precheck: requireDirectMessages,
    handler: async ({ ctx, principal, url }) => ({ body: await listDms(ctx, principal, windowOf(url.searchParams)) }),
  },
  {
    method: 'GET',
    path: '/v1/dms/:dm_id',
    action: 'dm.read',
    precheck: requireDirectMessages,
    handler: async ({ ctx, principal, params }) => ({ body: await getDm(ctx, principal, params.dm_id!) }),
  },
  {
    method: 'GET',
    path: '/v1/dms/:dm_id/messages',
    action: 'dm.read',
    precheck: requireDirectMessages,
    handler: async ({ ctx, principal, params, url }) => ({
      body: await dmMessages(ctx, principal, params.dm_id!, windowOf(url.searchParams), url.searchParams.get('as')),
      stream: true,
    }),
  },
];
