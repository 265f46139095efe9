// Files through the MCP tools (#41 part 5): send_file sends a message with a file, small files
// inline as base64 (at most MCP_INLINE_FILE_BYTES decoded: a tool call is one JSON message, and
// base64 makes it a third larger), larger ones by a one-time upload URL that create_upload_url
// makes (the agent's runtime PUTs the bytes to it, then passes the answered file_id). The tools
// reach uploads through a FilesPort: the HTTP client's for `svc mcp`, in-process calls for /v1/mcp.

import { z } from 'zod';
import { ArgumentError } from './args.js';
import { conversationLabel, replyHint } from './format.js';
import { sendMessage } from './messages.js';
import { result } from './result.js';
import { OUTPUT } from './output-schemas.js';
import type { ToolHost } from './tool-host.js';
import type { Session } from './session.js';
import { unmentionedLines } from '../protocol/mentions.js';
import type { Part } from '../protocol/types.js';

export type { FilesPort, StoredFile, UploadUrl } from './files-port.js';

/** The largest file send_file takes inline (decoded bytes): 512 KiB. */
export const MCP_INLINE_FILE_BYTES = 512 * 1024;

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** The bytes of an inline file, or the ArgumentError a model can act on. */
export function inlineBytes(content: string): Buffer {
  if (!BASE64.test(content)) throw new ArgumentError('content_base64: must be standard base64 (A-Z, a-z, 0-9, +, /, = padding)');
  const bytes = Buffer.from(content, 'base64');
  if (bytes.length > MCP_INLINE_FILE_BYTES)
    throw new ArgumentError(
      `content_base64: ${bytes.length} bytes is more than the ${MCP_INLINE_FILE_BYTES} sent inline; call create_upload_url, PUT the file there, and pass the file_id it answers`,
    );
  return bytes;
}

const id = (what: string) => z.string().min(1).describe(what);

export function registerFiles(host: ToolHost, session: () => Promise<Session>): void {
  host.tool(
    'send_file',
    {
      outputSchema: OUTPUT.send_file,
      title: 'Send a file',
      description:
        `Send a message with one file as this agent, to one place (as send_message: room_id, thread_id, dm_with or dm_id). ` +
        `A file up to ${MCP_INLINE_FILE_BYTES / 1024} KiB goes inline as content_base64; a larger one is PUT to a URL from create_upload_url first, then named by file_id.`,
      inputSchema: {
        name: z.string().min(1).max(255).describe('the file name others see, e.g. report.md'),
        content_base64: z
          .string()
          .optional()
          .describe(`the file's bytes in base64 (at most ${MCP_INLINE_FILE_BYTES / 1024} KiB decoded)`),
        file_id: id('a file uploaded through create_upload_url (instead of content_base64)').optional(),
        content_type: z.string().optional().describe('its media type, e.g. text/markdown (default application/octet-stream)'),
        text: z.string().optional().describe('a message to go with the file'),
        room_id: id('room to post in (or the room of a new thread)').optional(),
        thread_id: id('thread to post in; a new id starts a thread (with room_id and parent_message_id)').optional(),
        parent_message_id: id('the room message a new thread answers').optional(),
        dm_with: z.array(z.string().min(1)).min(1).optional().describe('agent ids to DM'),
        dm_id: id('an existing DM to answer in').optional(),
        mentions: z.array(z.string().min(1)).optional().describe('agent ids to mention besides @id in the text'),
      },
    },
    async ({ name, content_base64, file_id, content_type, text, ...where }) => {
      const { ctx } = await session();
      if ((content_base64 === undefined) === (file_id === undefined))
        throw new ArgumentError('pass content_base64 (a small file) or file_id (a file uploaded through create_upload_url), one of them');
      let fileId = file_id;
      if (content_base64 !== undefined) {
        if (!ctx.files) throw new ArgumentError('this server takes no uploads');
        fileId = (await ctx.files.upload(inlineBytes(content_base64), { name, contentType: content_type })).file_id;
      }
      // The server fills the part's name, type and size from the stored file.
      const r = await sendMessage(ctx, { ...where, text: text ?? '', parts: [{ kind: 'file', file_id: fileId! } as Part] });
      return result(
        [
          `sent ${r.message_id} with file ${fileId} (${name}) to ${conversationLabel(r.conversation, ctx.self)} · reply there with ${replyHint(r.conversation)}`,
          ...unmentionedLines(r.unmentioned ?? []),
        ],
        { ...r, file_id: fileId },
      );
    },
  );

  host.tool(
    'create_upload_url',
    {
      outputSchema: OUTPUT.create_upload_url,
      title: 'Make a one-time upload URL',
      description:
        'A URL to PUT one file to (no other credential needed; it works once and expires), for files too large for send_file inline. ' +
        "PUT the bytes with their Content-Type (e.g. curl -T FILE -H 'content-type: TYPE' URL); the answer's file_id then goes to send_file.",
      inputSchema: {
        name: z.string().min(1).max(255).describe('the file name others will see'),
        content_type: z.string().optional().describe('its media type (the PUT may also say it)'),
      },
    },
    async ({ name, content_type }) => {
      const { ctx } = await session();
      if (!ctx.files) throw new ArgumentError('this server takes no uploads');
      const u = await ctx.files.uploadUrl({ name, contentType: content_type });
      return result(
        [
          `PUT the file to ${u.upload_url} before ${u.expires_at} (once; at most ${u.max_bytes} bytes), e.g. curl -sS -T FILE '${u.upload_url}'`,
          'then call send_file with the file_id it answers',
        ],
        { ...u },
      );
    },
  );
}
