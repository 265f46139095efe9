// The tools of svc's MCP server (ten here, and those features add: `ToolSet`), registered through a ToolHost (tool-host.ts) so the same
// code serves 2025-era clients on the 1.x SDK server and 2026-07-28 requests on the 2.x one. Every
// tool answers compact text for the model plus `structuredContent` matching its output schema
// (output-schemas.ts); a failure of any kind is a tool error carrying the server's message (both
// SDKs turn a thrown error into one).

import { z } from 'zod';
import { conversationLines, listConversations, whoami } from './conversations.js';
import { conversationLabel, groupedLines, messageView, replyHint } from './format.js';
import type { Scope } from './inbox.js';
import { WAIT_DEFAULT_S, WAIT_MAX_S } from './limits.js';
import { readMessages, sendMessage } from './messages.js';
import { unmentionedLines } from '../protocol/mentions.js';
import { result } from './result.js';
import { registerEditDelete } from './edit-delete.js';
import { registerSearch } from './search.js';
import { registerFiles } from './files.js';
import { OUTPUT } from './output-schemas.js';
import type { Session } from './session.js';
import type { ToolHost, ToolSet } from './tool-host.js';
import { DELIVERY_WAIT_MAX_S, deliveryLine, waitForDelivery } from './delivery.js';
import { waitForMessages } from './wait.js';

const id = (what: string) => z.string().min(1).describe(what);

/** Registers every tool on `host`, with those features add (`more`); each reaches the network through `session()`. */
export function registerTools(host: ToolHost, session: () => Promise<Session>, more: readonly ToolSet[] = []): void {
  host.tool(
    'whoami',
    {
      outputSchema: OUTPUT.whoami,
      title: 'Who am I',
      description: 'The network, this agent (id, FQID, name) and the rooms it belongs to.',
      annotations: { readOnlyHint: true },
    },
    async () => {
      const { ctx } = await session();
      const w = await whoami(ctx);
      return result(
        [
          `agent ${w.agent.id}${w.agent.name ? ` (${w.agent.name})` : ''} · ${w.agent.fqid}${w.agent.registered ? '' : ' · not registered yet'}`,
          `network ${w.network.id} (${w.network.name}, svc ${w.network.version}; DMs ${w.network.direct_messages ? 'on' : 'off'})`,
          `member of: ${w.rooms.length > 0 ? w.rooms.join(', ') : 'no rooms'}`,
        ],
        { ...w },
      );
    },
  );

  host.tool(
    'list_conversations',
    {
      outputSchema: OUTPUT.list_conversations,
      title: 'List conversations',
      description:
        'Rooms, recent threads and DMs this agent can read, with unread counts since it last read each one, and the send_message arguments that reply there.',
      annotations: { readOnlyHint: true },
    },
    async () => {
      const { ctx, dmsEnabled } = await session();
      const entries = await listConversations(ctx, dmsEnabled);
      return result(conversationLines(entries), { conversations: entries });
    },
  );

  host.tool(
    'read_messages',
    {
      outputSchema: OUTPUT.read_messages,
      title: 'Read messages',
      description:
        'A page of history of one conversation (room_id, thread_id or dm_id), oldest first. Pass before=<message id> for older messages. Reading the newest page marks the conversation read.',
      inputSchema: {
        room_id: id('room to read').optional(),
        thread_id: id('thread to read').optional(),
        dm_id: id('DM to read').optional(),
        limit: z.number().int().min(1).max(100).default(20).describe('how many messages (default 20, max 100)'),
        before: id('a message id: return messages older than it').optional(),
      },
      annotations: { readOnlyHint: true },
    },
    async (a) => {
      const { ctx } = await session();
      const self = ctx.self;
      const r = await readMessages(ctx, a);
      const views = r.messages.map((m) => messageView(m, self));
      const head = `${conversationLabel(r.conversation, self)} · ${views.length} message${views.length === 1 ? '' : 's'}, oldest first · reply with ${replyHint(r.conversation)}`;
      const more = r.page.has_more && r.page.next_before ? [`older messages: read_messages with before="${r.page.next_before}"`] : [];
      const body = views.length > 0 ? groupedLines(views, self).slice(1) : ['(no messages)'];
      return result([head, ...body, ...more], { conversation: r.conversation, messages: views, page: r.page });
    },
  );

  host.tool(
    'send_message',
    {
      outputSchema: OUTPUT.send_message,
      title: 'Send a message',
      description:
        'Send text as this agent to exactly one place: room_id; thread_id (for a new thread also room_id and parent_message_id); ' +
        'dm_with (agent ids; opens or reuses the DM); or dm_id. Mention agents with @id in the text or in mentions.',
      inputSchema: {
        text: z.string().min(1).describe('the message text'),
        room_id: id('room to post in (or the room of a new thread)').optional(),
        thread_id: id('thread to post in; a new id starts a thread (with room_id and parent_message_id)').optional(),
        parent_message_id: id('the room message a new thread answers').optional(),
        dm_with: z.array(z.string().min(1)).min(1).optional().describe('agent ids to DM (agent, net:agent or FQID)'),
        dm_id: id('an existing DM to answer in').optional(),
        mentions: z.array(z.string().min(1)).optional().describe('agent ids to mention besides @id in the text'),
        wait_for_delivery_s: z
          .number()
          .min(0)
          .max(DELIVERY_WAIT_MAX_S)
          .optional()
          .describe(`seconds to wait until every addressed agent's runtime has the message (max ${DELIVERY_WAIT_MAX_S}; default: no wait)`),
      },
    },
    async ({ wait_for_delivery_s, ...a }) => {
      const { ctx } = await session();
      const self = ctx.self;
      const r = await sendMessage(ctx, a);
      const made = r.thread_created ? ' (new thread)' : r.dm_created ? ' (new DM)' : '';
      const delivery = wait_for_delivery_s ? await waitForDelivery(ctx.client, r.message_id, wait_for_delivery_s) : undefined;
      return result(
        [
          `sent ${r.message_id} to ${conversationLabel(r.conversation, self)}${made} · reply there with ${replyHint(r.conversation)}`,
          ...unmentionedLines(r.unmentioned ?? []),
          ...(delivery ? [deliveryLine(delivery)] : []),
        ],
        { ...r, ...(delivery ? { delivery } : {}) },
      );
    },
  );

  host.tool(
    'wait_for_messages',
    {
      outputSchema: OUTPUT.wait_for_messages,
      title: 'Wait for messages',
      description:
        'Returns at once with what arrived since the last call (by default mentions of this agent and DMs to it; scope "all" for every message it can read), ' +
        `or waits until something does, up to timeout_s (default ${WAIT_DEFAULT_S}, max ${WAIT_MAX_S}). Nothing is returned twice, also across restarts.`,
      inputSchema: {
        timeout_s: z
          .number()
          .min(0)
          .max(WAIT_MAX_S)
          .default(WAIT_DEFAULT_S)
          .describe(`seconds to wait when nothing is there (default ${WAIT_DEFAULT_S}, max ${WAIT_MAX_S})`),
        scope: z
          .enum(['mentions', 'all'])
          .default('mentions')
          .describe('"mentions": mentions of this agent and DMs to it; "all": every message it can read'),
      },
    },
    async (a, call) =>
      waitForMessages(
        await session(),
        { timeout_s: a.timeout_s, scope: a.scope as Scope },
        call.signal,
        call.progress ? (n) => call.progress!(n, 'waiting for messages') : undefined,
      ),
  );

  registerSearch(host, session);
  for (const add of more) add(host, session);
  registerEditDelete(host, session);
  registerFiles(host, session);
}
