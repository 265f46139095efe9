// The MCP server for clients of the 2025 handshake (`initialize`: 2025-06-18, 2025-11-25) on the
// 1.x SDK's McpServer: the tools (tools.ts) and the inbox resource. 2026-07-28 requests are
// answered by the 2.x SDK's server with the same tools (server-2026.ts; docs/agents.md says why two).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CHANNEL_INSTRUCTIONS, CHANNEL_SERVER_CAPABILITIES } from './channel.js';
import { inboxContents, inboxUri, instructionsFor, serverInfo } from './server-info.js';
import type { Session } from './session.js';
import { legacyToolHost, type ToolSet } from './tool-host.js';
import { registerTools } from './tools.js';

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
  /** The tools features add beside the server's own (src/feature-commands.ts lists them for svc mcp). */
  tools?: readonly ToolSet[];
}

/**
 * The server with its tools. It answers MCP at once; the tools reach the network through
 * `deps.session()`, so a network that is not up yet makes tool errors, not a failed start. The inbox
 * resource is added by `addInbox` once the session exists (its URI names the agent).
 */
export function createMcpServer(deps: McpDeps): { server: McpServer; addInbox: (session: Session) => void } {
  const server = new McpServer(serverInfo(deps.agent), {
    capabilities: {
      tools: {},
      resources: deps.subscribe === false ? {} : { subscribe: true, listChanged: true },
      ...(deps.channel ? CHANNEL_SERVER_CAPABILITIES : {}),
    },
    instructions: instructionsFor(deps.agent) + (deps.channel ? ` ${CHANNEL_INSTRUCTIONS}` : ''),
  });

  registerTools(legacyToolHost(server), deps.session, deps.tools);

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
    () => inboxContents(session),
  );
  inbox.onArrival?.(() => {
    if (subscribed.has(uri) && server.isConnected()) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  });
}
