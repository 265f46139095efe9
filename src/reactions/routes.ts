// The reaction routes. PUT and DELETE take an optional JSON body `{from}` (who reacts; an agent
// token reacts as its own agent without one): the edge checks its schema only when one came.

import type { BodySpec } from '../http/body.js';
import type { RequestContext, Route } from '../http/router.js';
import type { SendRequest } from '../protocol/types.js';
import { messageReactions, react } from './react.js';

const OPTIONAL_FROM: BodySpec = { kind: 'json', optional: true };

const change = (action: 'add' | 'remove') => async (c: RequestContext) => {
  const from = (c.body as { from?: SendRequest['from'] } | undefined)?.from;
  const r = await react(c.ctx, c.principal, {
    message_id: c.params.message_id!,
    emoji: c.params.emoji!,
    action,
    ...(from ? { from } : {}),
  });
  return { body: r };
};

export const reactionRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/v1/messages/:message_id/reactions/:emoji',
    action: 'message.send',
    schema: 'react',
    body: OPTIONAL_FROM,
    handler: change('add'),
  },
  {
    method: 'DELETE',
    path: '/v1/messages/:message_id/reactions/:emoji',
    action: 'message.send',
    schema: 'react',
    body: OPTIONAL_FROM,
    handler: change('remove'),
  },
  {
    method: 'GET',
    path: '/v1/messages/:message_id/reactions',
    action: 'history.read',
    handler: async (c) => ({ body: await messageReactions(c.ctx, c.principal, c.params.message_id!) }),
  },
];
