// What the MCP tools share once the network answered, apart from the server so each tool's file
// can name it without importing the server that registers it. `svc mcp` (stdio) fills it with the
// HTTP client, a file of read markers and an attachment's inbox; `/v1/mcp` (src/mcp-http/) with
// in-process calls as the caller and the agent's read state in the store.

import type { Message } from '../protocol/types.js';
import type { NetworkApi, ToolContext } from './conversations.js';
import type { Scope } from './inbox.js';

export type { NetworkApi };

/** What wait_for_messages and the inbox resource need of an inbox. */
export interface InboxPort {
  /** Returns what arrived since the last call (in scope), or waits for it until `timeoutMs`. */
  wait(scope: Scope, timeoutMs: number, signal?: AbortSignal): Promise<{ messages: Message[]; timedOut: boolean }>;
  /** Messages in scope the next wait would return (nothing is consumed). */
  pending(scope: Scope): Message[] | Promise<Message[]>;
  /** Calls `fn` for each arriving mention or DM (only where a session lasts: stdio). */
  onArrival?(fn: (m: Message) => void): () => void;
}

/** What the tools work with once the network answered: the agent, its client, its inbox. */
export interface Session {
  ctx: ToolContext;
  inbox: InboxPort;
  dmsEnabled: boolean;
}
