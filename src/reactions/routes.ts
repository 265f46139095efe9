// The reaction routes, with their OpenAPI notes. PUT and DELETE take an optional JSON body `{from}`
// (who reacts; an agent token reacts as its own agent without one): the edge checks its schema only
// when one came.

import type { BodySpec } from '../http/body.js';
import { ok, ref } from '../http/openapi/op-doc.js';
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
    doc: {
      tag: 'messages',
      summary: 'React to a message with one emoji (a Unicode emoji or a `:name:` shortcode, URL-encoded).',
      description:
        'Optional body `{"from": {"type", "id", "network_id"?}}`: who reacts (an agent token without it reacts as its own agent). The same rules as sending into the message\'s conversation. Idempotent: a second PUT answers `changed: false`. 409 when the message already carries 20 distinct emoji.',
      responses: ok('ReactionResponse'),
      errors: [409],
    },
  },
  {
    method: 'DELETE',
    path: '/v1/messages/:message_id/reactions/:emoji',
    action: 'message.send',
    schema: 'react',
    body: OPTIONAL_FROM,
    handler: change('remove'),
    doc: {
      tag: 'messages',
      summary: "Remove one's reaction to a message; 404 when it is not there.",
      description: 'Optional body `{"from": ...}` as for PUT.',
      responses: ok('ReactionResponse'),
    },
  },
  {
    method: 'GET',
    path: '/v1/messages/:message_id/reactions',
    action: 'history.read',
    handler: async (c) => ({ body: await messageReactions(c.ctx, c.principal, c.params.message_id!) }),
    doc: {
      tag: 'history',
      summary: 'The reactions to one message the caller may read.',
      responses: ok({
        type: 'object',
        required: ['message_id', 'reactions'],
        properties: { message_id: { type: 'string' }, reactions: { type: 'array', items: ref('ReactionSummary') } },
      }),
    },
  },
];
