import { sendMessage } from '../../network/messages.js';
import type { SendRequest } from '../../protocol/types.js';
import type { Route } from '../router.js';

export const messageRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/messages',
    action: 'message.send',
    schema: 'send-message',
    handler: ({ ctx, principal, body }) => sendMessage(ctx, principal, body as SendRequest).then((sent) => ({ body: sent })),
  },
];
