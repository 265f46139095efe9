// The reaction routes. PUT and DELETE take an optional JSON body `{from}` (who reacts; an agent
// token reacts as its own agent without one), so they read it themselves rather than through the
// route's schema, which would make a body required.

import { AppError } from '../errors.js';
import { parseJsonObject, readBody } from '../http/body.js';
import type { RequestContext, Route } from '../http/router.js';
import type { SendRequest } from '../protocol/types.js';
import { check } from '../schemas.js';
import { messageReactions, react } from './react.js';

async function fromOfBody(c: RequestContext): Promise<SendRequest['from'] | undefined> {
  const raw = await readBody(c.req);
  if (raw.length === 0) return undefined;
  const body = parseJsonObject(raw);
  const problem = check('react', body, 'body');
  if (problem) throw new AppError('bad_request', problem);
  return (body as { from?: SendRequest['from'] }).from;
}

const change = (action: 'add' | 'remove') => async (c: RequestContext) => {
  const from = await fromOfBody(c);
  const r = await react(c.ctx, c.principal, {
    message_id: c.params.message_id!,
    emoji: c.params.emoji!,
    action,
    ...(from ? { from } : {}),
  });
  return { body: r };
};

export const reactionRoutes: Route[] = [
  { method: 'PUT', path: '/v1/messages/:message_id/reactions/:emoji', action: 'message.send', handler: change('add') },
  { method: 'DELETE', path: '/v1/messages/:message_id/reactions/:emoji', action: 'message.send', handler: change('remove') },
  {
    method: 'GET',
    path: '/v1/messages/:message_id/reactions',
    action: 'history.read',
    handler: async (c) => ({ body: await messageReactions(c.ctx, c.principal, c.params.message_id!) }),
  },
];
