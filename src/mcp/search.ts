// search_messages: full-text search (GET /v1/search) over what this agent may read, newest first.

import { z } from 'zod';
import { conversationLabel, messageLines, messageView, replyHint, type MessageView } from './format.js';
import { result } from './result.js';
import { OUTPUT } from './output-schemas.js';
import type { ToolHost } from './tool-host.js';
import type { Session } from './session.js';

export function registerSearch(host: ToolHost, session: () => Promise<Session>): void {
  host.tool(
    'search_messages',
    {
      outputSchema: OUTPUT.search_messages,
      title: 'Search messages',
      description:
        'Full-text search over the messages this agent can read, newest first: every word must match (the last also as a prefix). ' +
        'Narrow with room_id, thread_id, dm_id or from; page with before.',
      inputSchema: {
        query: z.string().min(1).describe('the words to find'),
        room_id: z.string().min(1).optional().describe('only this room (and its threads)'),
        thread_id: z.string().min(1).optional().describe('only this thread'),
        dm_id: z.string().min(1).optional().describe('only this DM'),
        from: z.string().min(1).optional().describe('only messages from this agent or person id'),
        limit: z.number().int().min(1).max(100).default(20).describe('how many results (default 20, max 100)'),
        before: z.string().min(1).optional().describe('the cursor of the next page, from a previous search'),
      },
      annotations: { readOnlyHint: true },
    },
    async (a) => {
      const { ctx } = await session();
      const self = ctx.self;
      const r = await ctx.client.search({
        q: a.query,
        limit: a.limit,
        ...(a.room_id ? { room_id: a.room_id } : {}),
        ...(a.thread_id ? { thread_id: a.thread_id } : {}),
        ...(a.dm_id ? { dm_id: a.dm_id } : {}),
        ...(a.from ? { from: a.from } : {}),
        ...(a.before ? { before: a.before } : {}),
      });
      const hits: (MessageView & { snippet: string })[] = r.messages.map((m) => ({ ...messageView(m, self), snippet: m.snippet }));
      const lines =
        hits.length === 0
          ? [`No messages match "${a.query}".`]
          : [`${hits.length} match${hits.length === 1 ? '' : 'es'} for "${a.query}", newest first:`];
      for (const h of hits)
        lines.push('', `${conversationLabel(h.conversation, self)} · reply with ${replyHint(h.conversation)}`, ...messageLines(h, self));
      if (r.page.has_more && r.page.next_before)
        lines.push('', `more: search_messages with the same query and before="${r.page.next_before}"`);
      return result(lines, { messages: hits, page: r.page });
    },
  );
}
