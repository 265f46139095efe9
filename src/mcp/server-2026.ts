// The MCP server for protocol revision 2026-07-28, on the 2.x SDK (`@modelcontextprotocol/server`):
// the same tools as the 2025-era server (tools.ts through a ToolHost) and the inbox resource. The
// SDK answers what the revision adds: `server/discover`, the per-request `_meta` envelope, the
// `Mcp-Method`/`Mcp-Name` header checks over HTTP, `resultType`, cache hints on the cacheable
// results, and `subscriptions/listen` (the entry that serves this server routes it: over stdio the
// inbox's `notifications/resources/updated` below, over HTTP a bus fed by the store, mcp-http/modern.ts).

import { McpServer } from '@modelcontextprotocol/server';
import { inboxContents, inboxUri, instructionsFor, serverInfo } from './server-info.js';
import type { Session } from './session.js';
import { modernToolHost, type ToolSet } from './tool-host.js';
import { registerTools } from './tools.js';

export interface ModernDeps {
  session: () => Promise<Session>;
  agent?: string;
  /** The tools features add (server.ts's `McpDeps.tools`). */
  tools?: readonly ToolSet[];
}

/**
 * Cache hints (2026-07-28 lists carry them): the tool list is the same for every caller and changes
 * only with svc's version, so shared caches may keep it an hour; what names the agent (discover's
 * server title, the inbox resource) is private, and the inbox is never cached (it is what is new).
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'server/discover': { ttlMs: 300_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 300_000, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
} as const;

/** A 2.x server with the tools; `addInbox` adds the inbox resource once the session exists. */
export function createModernServer(deps: ModernDeps): { server: McpServer; addInbox: (session: Session) => void } {
  const server = new McpServer(serverInfo(deps.agent), {
    capabilities: { tools: {}, resources: { subscribe: true } },
    instructions: instructionsFor(deps.agent),
    cacheHints: CACHE_HINTS,
  });
  registerTools(modernToolHost(server), deps.session, deps.tools);
  return { server, addInbox: (session) => registerInbox(server, session) };
}

/**
 * The inbox: mentions and DMs wait_for_messages has not returned yet. A client learns that it
 * changed through `subscriptions/listen` with the inbox's URI among `resourceSubscriptions`.
 */
function registerInbox(server: McpServer, session: Session): void {
  const { ctx, inbox } = session;
  const self = ctx.self;
  const uri = inboxUri(self);
  server.registerResource(
    'inbox',
    uri,
    {
      title: `Inbox of ${self.agent_id}`,
      description:
        'Mentions of this agent and DMs to it that wait_for_messages has not returned yet. Listen (subscriptions/listen) to be told when one arrives.',
      mimeType: 'text/plain',
    },
    () => inboxContents(session),
  );
  // Over stdio the entry turns this into a notification on each listen stream that asked for the
  // URI (and drops it when none did); over HTTP arrivals come from the store instead.
  inbox.onArrival?.(() => {
    if (server.isConnected()) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  });
}
