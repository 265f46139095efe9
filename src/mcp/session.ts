// What the MCP tools share once the network answered, apart from the server so each tool's file
// can name it without importing the server that registers it.

import type { ToolContext } from './conversations.js';
import type { Inbox } from './inbox.js';

/** What the tools work with once the network answered: the agent, its client, its inbox. */
export interface Session {
  ctx: ToolContext;
  inbox: Inbox;
  dmsEnabled: boolean;
}
