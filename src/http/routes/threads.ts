import { getThread, threadMessages } from '../../network/history.js';
import { windowOf } from '../query.js';
import type { Route } from '../router.js';

export const threadRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/threads/:thread_id',
    action: 'history.read',
    handler: async ({ ctx, principal, params }) => ({ body: await getThread(ctx, principal, params.thread_id!) }),
  },
  {
    method: 'GET',
    path: '/v1/threads/:thread_id/messages',
    action: 'history.read',
    handler: async ({ ctx, principal, params, url }) => ({
      body: await threadMessages(ctx, principal, params.thread_id!, windowOf(url.searchParams), url.searchParams.get('as')),
      stream: true,
    }),
  },
];
