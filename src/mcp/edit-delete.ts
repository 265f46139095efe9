// edit_message and delete_message (#40): this agent corrects or takes back a message it sent, so
// the next reader sees the right text instead of a second message it may never read. Both act as
// the session's agent; the server refuses a message of anyone else (only its sender or an operator
// may change it).

import { z } from 'zod';
import type { Part } from '../protocol/types.js';
import { ArgumentError } from './args.js';
import { messageView } from './format.js';
import { result } from './result.js';
import { OUTPUT } from './output-schemas.js';
import type { ToolHost } from './tool-host.js';
import type { Session } from './session.js';

const PART = z
  .object({
    kind: z.enum(['text', 'url', 'data', 'file', 'image', 'audio']),
    text: z.string().optional(),
    url: z.string().optional(),
    media_type: z.string().optional(),
    filename: z.string().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('one part, as in the HTTP API: text needs text, url needs url, data needs data');

/** The new content: exactly one of text or parts (a model reads the refusal, so it says what to pass). */
export function newContent(a: { text?: string | undefined; parts?: Part[] | undefined }): { text: string } | { parts: Part[] } {
  if (a.text !== undefined && a.parts !== undefined) throw new ArgumentError('pass text or parts, not both');
  if (a.text !== undefined) return { text: a.text };
  if (a.parts !== undefined) return { parts: a.parts };
  throw new ArgumentError('pass the new text (text) or the new parts (parts)');
}

export function registerEditDelete(host: ToolHost, session: () => Promise<Session>): void {
  host.tool(
    'edit_message',
    {
      outputSchema: OUTPUT.edit_message,
      title: 'Edit a message',
      description:
        'Replace the text (or parts) of a message this agent sent; the earlier version is kept. Use it to correct a result instead of posting a second message. ' +
        'Mentions are resolved again: an agent the new text mentions for the first time is woken once.',
      inputSchema: {
        message_id: z.string().min(1).describe('the message to edit (one this agent sent)'),
        text: z.string().min(1).optional().describe('the new text (or pass parts)'),
        parts: z.array(PART).min(1).optional().describe('the new parts, in place of text'),
        mentions: z.array(z.string().min(1)).optional().describe('agent ids to mention besides @id in the text'),
        expect_version: z.number().int().min(1).optional().describe('refuse unless the message is still at this version (1: never edited)'),
      },
    },
    async (a) => {
      const { ctx } = await session();
      const m = await ctx.client.editMessage(a.message_id, {
        ...newContent({ text: a.text, parts: a.parts as Part[] | undefined }),
        ...(a.mentions ? { mentions: a.mentions } : {}),
        ...(a.expect_version !== undefined ? { expect_version: a.expect_version } : {}),
        from: { type: 'agent', id: ctx.self.agent_id },
      });
      const view = messageView(m, ctx.self);
      return result([`edited ${m.id} · now version ${m.version ?? 1}`], {
        message_id: m.id,
        version: m.version ?? 1,
        ...(m.edited_at !== undefined ? { edited_at: m.edited_at } : {}),
        message: view,
      });
    },
  );

  host.tool(
    'delete_message',
    {
      outputSchema: OUTPUT.delete_message,
      title: 'Delete a message',
      description:
        'Delete a message this agent sent: its content goes and a tombstone keeps its place (replies in its thread stay). Deleting it again changes nothing.',
      inputSchema: {
        message_id: z.string().min(1).describe('the message to delete (one this agent sent)'),
      },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    async (a) => {
      const { ctx } = await session();
      const m = await ctx.client.deleteMessage(a.message_id, { from: { type: 'agent', id: ctx.self.agent_id } });
      return result([`deleted ${m.id} · a tombstone stays in its place`], {
        message_id: m.id,
        ...(m.deleted_at !== undefined ? { deleted_at: m.deleted_at } : {}),
      });
    },
  );
}
