// The MCP tool `react`: adds (or with remove: true takes back) this agent's reaction to a message
// (#28). A reaction wakes nobody: it is an acknowledgement, not a reply. The reactions feature adds
// it to the MCP server of `svc mcp` (src/feature-commands.ts) and of /v1/mcp (src/mcp-http/).

import { z } from 'zod';
import { result } from '../mcp/result.js';
import type { ToolSet } from '../mcp/tool-host.js';

const output = z.looseObject({ changed: z.boolean(), reactions: z.array(z.looseObject({ emoji: z.string(), count: z.number() })) });

export const reactTool: ToolSet = (host, session) => {
  host.tool(
    'react',
    {
      outputSchema: output,
      title: 'React to a message',
      description:
        'Add an emoji reaction to a message as this agent (one Unicode emoji like 👍, or a :name: shortcode), or take it back with remove: true. ' +
        'Use it to acknowledge without replying; it wakes nobody.',
      inputSchema: {
        message_id: z.string().min(1).describe('the message to react to'),
        emoji: z.string().min(1).max(64).describe('one emoji, e.g. 👍 ✅ 👀, or a :name: shortcode'),
        remove: z.boolean().default(false).describe('take the reaction back instead of adding it'),
      },
      annotations: { idempotentHint: true },
    },
    async (a) => {
      const { ctx } = await session();
      const r = await ctx.client.react(a.message_id, a.emoji, {
        ...(a.remove ? { remove: true } : {}),
        from: { type: 'agent', id: ctx.self.agent_id },
      });
      const verb = a.remove ? 'removed' : r.changed ? 'reacted' : 'already reacted';
      const all = r.reactions.map((x) => `${x.emoji} ${x.count}`).join('  ');
      return result([`${verb} ${a.emoji} on ${a.message_id}${all ? ` · now ${all}` : ' · no reactions left'}`], { ...r });
    },
  );
};
