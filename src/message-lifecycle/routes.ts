// The routes that change and go back over a message (#40 parts 1 and 2), with their OpenAPI notes.

import type { BodySpec } from '../http/body.js';
import { ok, ref } from '../http/openapi/op-doc.js';
import type { Route } from '../http/router.js';
import type { MessageVersions, SendRequest } from '../protocol/types.js';
import { visibleMessage } from '../network/access.js';
import type { NetworkContext } from '../network/context.js';
import type { Principal } from '../auth/principal.js';
import { deleteMessage, editMessage, redactMessage, type EditMessageRequest } from './change.js';

const OPTIONAL_FROM: BodySpec = { kind: 'json', optional: true };

/** GET /v1/messages/{id}/versions: a message's earlier versions, to whoever may read it. */
async function versionsOf(ctx: NetworkContext, p: Principal, id: string): Promise<MessageVersions> {
  const { rec } = await visibleMessage(ctx, p, id);
  return { message_id: id, version: rec.message.version ?? 1, items: await ctx.store.messageVersions(id) };
}

export const lifecycleRoutes: Route[] = [
  {
    method: 'PATCH',
    path: '/v1/messages/:message_id',
    action: 'message.change',
    schema: 'edit-message',
    handler: async (c) => ({ body: await editMessage(c.ctx, c.principal, c.params.message_id!, c.body as EditMessageRequest) }),
    doc: {
      tag: 'messages',
      summary: 'Edit a message: new parts and mentions; the version it replaces is kept.',
      description:
        "By the message's sender (proven as a send proves `from`; an agent token edits as its own agent) or an operator with the admin scope, and only on the message's home network. Mentions are resolved again; an agent mentioned by no earlier version is woken once. Emits `message.edited`. 409 when the message was deleted or is not at `expect_version`. `version` is sent by a pairing relaying an edit (the version it made at home; a copy already there answers unchanged).",
      responses: ok('Message'),
      errors: [409],
    },
  },
  {
    method: 'DELETE',
    path: '/v1/messages/:message_id',
    action: 'message.change',
    schema: 'react',
    body: OPTIONAL_FROM,
    handler: async (c) => {
      const from = (c.body as { from?: SendRequest['from'] } | undefined)?.from;
      return { body: await deleteMessage(c.ctx, c.principal, c.params.message_id!, from) };
    },
    doc: {
      tag: 'messages',
      summary: 'Delete a message, leaving a tombstone in its place.',
      description:
        'Optional body `{"from": ...}`: who deletes, as for PATCH. The tombstone keeps the id, target, sender and place (a thread\'s replies stay reachable) with no parts, mentions, artifacts or earlier versions, and nothing features keep about it, and `deleted_at`. Emits `message.deleted`; deleting a tombstone again answers it unchanged.',
      responses: ok('Message'),
    },
  },
  {
    method: 'POST',
    path: '/v1/messages/:message_id/redact',
    action: 'message.change',
    schema: 'react',
    body: OPTIONAL_FROM,
    handler: async (c) => {
      const from = (c.body as { from?: SendRequest['from'] } | undefined)?.from;
      return { body: await redactMessage(c.ctx, c.principal, c.params.message_id!, from) };
    },
    doc: {
      tag: 'messages',
      summary: 'Redact a message: a tombstone, and its content scrubbed from everything the store keeps.',
      description:
        'By an operator with the admin scope (403 for anyone else), on any message this network keeps, a relayed copy included; a pairing relays a redaction made on the message\'s home network (`{"from": ...}`: the sender, as for DELETE). The message becomes a tombstone with `deleted_at` and `redacted_at`, and its parts, earlier versions, artifacts and reactions go; the SSE replay buffer and webhook deliveries show the tombstone in its place; sqlite rebuilds its search index without it and then runs a checkpoint that retires the journal holding it (`GET /readyz` says `redaction_scrub: pending` until then). Emits `message.redacted`; redacting again answers the tombstone unchanged. docs/messages.md says what is outside its reach (backups, copies already delivered).',
      responses: ok('Message'),
    },
  },
  {
    method: 'GET',
    path: '/v1/messages/:message_id/versions',
    action: 'history.read',
    handler: async (c) => ({ body: await versionsOf(c.ctx, c.principal, c.params.message_id!) }),
    doc: {
      tag: 'history',
      summary: "A message's earlier versions, oldest first, to whoever may read it.",
      responses: ok({
        type: 'object',
        required: ['message_id', 'version', 'items'],
        properties: {
          message_id: { type: 'string' },
          version: { type: 'integer', minimum: 1, description: 'The current version (1: never edited).' },
          items: { type: 'array', items: ref('MessageVersion') },
        },
      }),
    },
  },
];
