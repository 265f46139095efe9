// wait_for_messages, apart from the SDK server that registers it: `svc mcp` calls it from its tool,
// and /v1/mcp answers a request that is one wait call with it directly (src/mcp-http/wait-call.ts),
// so an open wait holds no SDK server (#38 item 9).

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { conversationKey, groupedLines, messageView } from './format.js';
import type { Scope } from './inbox.js';
import { WAIT_DEFAULT_S, WAIT_MAX_S } from './limits.js';
import { result } from './result.js';
import type { Markers } from './read-markers.js';
import type { InboxPort, Session } from './session.js';

/** While a wait lasts, a progress notification this often keeps clients' request timers alive. */
export const PROGRESS_EVERY_MS = 15_000;

export interface WaitArgs {
  timeout_s: number;
  scope: Scope;
}

/** The arguments of a call as the tool's schema reads them (defaults filled), or undefined when they break it. */
export function waitArgsOf(raw: unknown): WaitArgs | undefined {
  const a = (raw === undefined ? {} : raw) as Record<string, unknown>;
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return undefined;
  // zod's default fills an absent value only: a null is refused, as the schema refuses it.
  const t = a.timeout_s === undefined ? WAIT_DEFAULT_S : a.timeout_s;
  const scope = a.scope === undefined ? 'mentions' : a.scope;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > WAIT_MAX_S) return undefined;
  if (scope !== 'mentions' && scope !== 'all') return undefined;
  return { timeout_s: t, scope };
}

/**
 * Waits for what the agent has not been handed yet and answers the tool's result; `progress` is
 * called every PROGRESS_EVERY_MS while it waits (the caller sends the notification).
 */
export async function waitForMessages(
  session: WaitSession & Pick<Session, 'inbox'>,
  a: WaitArgs,
  signal: AbortSignal | undefined,
  progress?: (n: number) => void,
): Promise<CallToolResult> {
  let beat: NodeJS.Timeout | undefined;
  if (progress) {
    let n = 0;
    beat = setInterval(() => progress(++n), PROGRESS_EVERY_MS);
  }
  let r: Awaited<ReturnType<InboxPort['wait']>>;
  try {
    r = await session.inbox.wait(a.scope, a.timeout_s * 1000, signal);
  } finally {
    clearInterval(beat);
  }
  return waitResult(session, a, r);
}

/** What a wait needs of the session once it has its messages: the agent and its read markers. */
export interface WaitSession {
  ctx: Pick<Session['ctx'], 'self'> & { markers: Pick<Markers, 'advance'> };
}

/** The tool's result for what a wait got; DMs (and everything, for scope "all") are marked read. */
export async function waitResult(session: WaitSession, a: WaitArgs, r: Awaited<ReturnType<InboxPort['wait']>>): Promise<CallToolResult> {
  const { ctx } = session;
  const self = ctx.self;
  const views = r.messages.map((m) => messageView(m, self));
  for (const v of views) {
    // DMs arrive whole, and scope "all" is everything: those conversations are read now.
    if (a.scope === 'all' || v.conversation.kind === 'dm')
      await ctx.markers.advance(conversationKey(v.conversation), { id: v.id, at: v.created_at });
  }
  const what = a.scope === 'all' ? 'messages' : `mentions of ${self.agent_id} and DMs to it`;
  const lines =
    views.length === 0
      ? [`Nothing new (${what}) in ${a.timeout_s} s. Call wait_for_messages again to keep waiting.`]
      : [`${views.length} new message${views.length === 1 ? '' : 's'} (${what}):`, '', ...groupedLines(views, self)];
  return result(lines, { messages: views, scope: a.scope, timed_out: r.timedOut });
}
