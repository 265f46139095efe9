// The MCP server of `svc mcp`: tools and the inbox resource, registered on the SDK's McpServer.
// Every tool answers compact text for the model plus `structuredContent`; a failure of any kind is
// a tool error carrying the server's message (the SDK turns a thrown error into one).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { VERSION } from '../version.js';
import { CHANNEL_INSTRUCTIONS, CHANNEL_SERVER_CAPABILITIES } from './channel.js';
import { conversationLines, listConversations, whoami } from './conversations.js';
import { conversationLabel, groupedLines, messageView, replyHint, type Self } from './format.js';
import type { Scope } from './inbox.js';
import { WAIT_DEFAULT_S, WAIT_MAX_S } from './limits.js';
import { readMessages, sendMessage } from './messages.js';
import { unmentionedLines } from '../protocol/mentions.js';
import { result } from './result.js';
import { registerReact } from './react.js';
import { registerEditDelete } from './edit-delete.js';
import { registerSearch } from './search.js';
import { registerFiles } from './files.js';
import type { Session } from './session.js';
import { DELIVERY_WAIT_MAX_S, deliveryLine, waitForDelivery } from './delivery.js';
import { waitForMessages } from './wait.js';

export type { Session };

export interface McpDeps {
  /** The session, started on first use and retried while the network does not answer. */
  session: () => Promise<Session>;
  /** The agent id when known before the network answers (`--agent`), for the instructions. */
  agent?: string;
  /** Declares the claude/channel capability and says so in the instructions (svc mcp over stdio pushes the events). */
  channel?: boolean;
  /**
   * Whether the inbox resource can be subscribed to (default true). Stateless HTTP has no stream
   * to say a resource changed on, so `/v1/mcp` does not offer it.
   */
  subscribe?: boolean;
}

/** The URI of this agent's inbox resource. */
export const inboxUri = (self: Self): string => `svc://${self.network_id}/agents/${self.agent_id}/inbox`;

const id = (what: string) => z.string().min(1).describe(what);

/**
 * The server with its tools. It answers MCP at once; the tools reach the network through
 * `deps.session()`, so a network that is not up yet makes tool errors, not a failed start. The inbox
 * resource is added by `addInbox` once the session exists (its URI names the agent).
 */
export function createMcpServer(deps: McpDeps): { server: McpServer; addInbox: (session: Session) => void } {
  const server = new McpServer(
    { name: 'svc', version: VERSION, title: deps.agent ? `svc agent ${deps.agent}` : 'svc agent' },
    {
      capabilities: {
        tools: {},
        resources: deps.subscribe === false ? {} : { subscribe: true, listChanged: true },
        ...(deps.channel ? CHANNEL_SERVER_CAPABILITIES : {}),
      },
      instructions:
        `You are ${deps.agent ? `agent ${deps.agent}` : 'an agent'} on an svc network (whoami says more). Call wait_for_messages to receive mentions and DMs, ` +
        'read_messages for context, and send_message to answer in the same conversation (each result says which arguments reply there).' +
        (deps.channel ? ` ${CHANNEL_INSTRUCTIONS}` : ''),
    },
  );

  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description: 'The network, this agent (id, FQID, name) and the rooms it belongs to.',
      annotations: { readOnlyHint: true },
    },
    async () => {
      const { ctx } = await deps.session();
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

  server.registerTool(
    'list_conversations',
    {
      title: 'List conversations',
      description:
        'Rooms, recent threads and DMs this agent can read, with unread counts since it last read each one, and the send_message arguments that reply there.',
      annotations: { readOnlyHint: true },
    },
    async () => {
      const { ctx, dmsEnabled } = await deps.session();
      const entries = await listConversations(ctx, dmsEnabled);
      return result(conversationLines(entries), { conversations: entries });
    },
  );

  server.registerTool(
    'read_messages',
    {
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
      const { ctx } = await deps.session();
      const self = ctx.self;
      const r = await readMessages(ctx, a);
      const views = r.messages.map((m) => messageView(m, self));
      const head = `${conversationLabel(r.conversation, self)} · ${views.length} message${views.length === 1 ? '' : 's'}, oldest first · reply with ${replyHint(r.conversation)}`;
      const more = r.page.has_more && r.page.next_before ? [`older messages: read_messages with before="${r.page.next_before}"`] : [];
      const body = views.length > 0 ? groupedLines(views, self).slice(1) : ['(no messages)'];
      return result([head, ...body, ...more], { conversation: r.conversation, messages: views, page: r.page });
    },
  );

  server.registerTool(
    'send_message',
    {
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
      const { ctx } = await deps.session();
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

  server.registerTool(
    'wait_for_messages',
    {
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
    async (a, extra) => {
      const token = extra._meta?.progressToken;
      const progress =
        token === undefined
          ? undefined
          : (n: number) =>
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, progress: n, message: 'waiting for messages' },
                })
                .catch(() => undefined);
      return waitForMessages(await deps.session(), { timeout_s: a.timeout_s, scope: a.scope as Scope }, extra.signal, progress);
    },
  );

  registerSearch(server, deps.session);
  registerReact(server, deps.session);
  registerEditDelete(server, deps.session);
  registerFiles(server, deps.session);

  const subscribed = new Set<string>();
  if (deps.subscribe === false) return { server, addInbox: (session) => registerInbox(server, session, subscribed) };
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    const self = (await deps.session().catch(() => undefined))?.ctx.self;
    const mine = self ? inboxUri(self) : undefined;
    if (req.params.uri !== mine) throw new Error(`no such resource: ${req.params.uri}${mine ? ` (subscribe to ${mine})` : ''}`);
    subscribed.add(req.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });
  return { server, addInbox: (session) => registerInbox(server, session, subscribed) };
}

/** Adds the inbox as a subscribable resource: updated whenever a mention or DM arrives. */
function registerInbox(server: McpServer, session: Session, subscribed: ReadonlySet<string>): void {
  const { ctx, inbox } = session;
  const self = ctx.self;
  const uri = inboxUri(self);
  server.registerResource(
    'inbox',
    uri,
    {
      title: `Inbox of ${self.agent_id}`,
      description:
        'Mentions of this agent and DMs to it that wait_for_messages has not returned yet. Subscribe to be told when one arrives.',
      mimeType: 'text/plain',
    },
    async () => {
      const views = (await inbox.pending('mentions')).map((m) => messageView(m, self));
      const text =
        views.length === 0
          ? 'No new mentions or DMs.'
          : [`${views.length} waiting (wait_for_messages returns them):`, '', ...groupedLines(views, self)].join('\n');
      return {
        contents: [
          { uri, mimeType: 'text/plain', text },
          { uri, mimeType: 'application/json', text: JSON.stringify({ messages: views }) },
        ],
      };
    },
  );
  inbox.onArrival?.(() => {
    if (subscribed.has(uri) && server.isConnected()) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  });
}
