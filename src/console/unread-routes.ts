// The unread routes (#29 part 4; docs/console.md): the caller's counts, and a read marker moved.

import type { Route } from '../http/router.js';
import { markRead, unreadView } from './unread.js';

export const unreadRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/unread',
    action: 'console',
    handler: async ({ ctx, principal }) => ({ body: await unreadView(ctx, principal) }),
  },
  {
    method: 'POST',
    path: '/v1/unread',
    action: 'console',
    schema: 'read-marker',
    handler: async ({ ctx, principal, body }) => ({ body: await markRead(ctx, principal, body as { message_id: string }) }),
  },
];
