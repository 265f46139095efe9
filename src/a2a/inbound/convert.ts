// Between A2A 1.0 messages and svc's: what a caller's message becomes (parts, and the conversation
// its context id names) and what an agent's reply becomes (the task's message, and its file and
// data parts as artifacts). Pure: the SDK's types only, no I/O.

import type { Artifact, Message as A2aMessage, Part as A2aPart } from '@a2a-js/sdk';
import type { Message, Part } from '../../protocol/types.js';
import { isId } from '../../protocol/ids.js';

/** Role.ROLE_AGENT (the SDK's enum, restated so this file loads without the SDK's code). */
const ROLE_AGENT = 2;

/** Most parts a caller's message may carry (svc's own send limit is checked again when it is stored). */
export const MAX_PARTS = 64;

/** The conversation a task's message goes to: the DM of caller and agent, or a thread by context id. */
export type Destination = { kind: 'dm' } | { kind: 'thread'; room_id: string; thread_id: string };

/**
 * The destination a context id names: `thread/<room_id>/<thread_id>` is that thread (a reply in
 * it, mentioning the agent); anything else (a new context, or a DM task's) is the caller's DM.
 */
export function destinationOf(contextId: string | undefined): Destination {
  const m = /^thread\/([^/]+)\/([^/]+)$/.exec(contextId ?? '');
  if (m && isId(m[1]!) && isId(m[2]!)) return { kind: 'thread', room_id: m[1]!, thread_id: m[2]! };
  return { kind: 'dm' };
}

/** svc parts of a caller's A2A parts; a string naming the first part svc cannot take otherwise. */
export function svcParts(parts: readonly A2aPart[]): Part[] | string {
  if (parts.length === 0) return 'message.parts: must hold at least one part';
  if (parts.length > MAX_PARTS) return `message.parts: at most ${MAX_PARTS} parts`;
  const out: Part[] = [];
  for (const [i, p] of parts.entries()) {
    const c = p.content;
    switch (c?.$case) {
      case 'text':
        out.push({ kind: 'text', text: c.value });
        break;
      case 'url':
        out.push({
          kind: 'url',
          url: c.value,
          ...(p.mediaType ? { media_type: p.mediaType } : {}),
          ...(p.filename ? { filename: p.filename } : {}),
        });
        break;
      case 'data': {
        const v: unknown = c.value;
        // svc's data part holds one object; any other JSON value is wrapped, not refused.
        out.push({
          kind: 'data',
          data: v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v },
        });
        break;
      }
      default:
        // Raw bytes would need an upload (POST /v1/files): the caller sends a url part instead.
        return `message.parts[${i}]: only text, url and data parts are accepted (upload files with POST /v1/files, then send their url)`;
    }
  }
  return out;
}

const part = (content: A2aPart['content'], mediaType = '', filename = ''): A2aPart => ({
  content,
  mediaType,
  filename,
  metadata: undefined,
});

/** One svc part as an A2A part; `base` makes a file part's url (GET /v1/files/{id}). */
export function a2aPart(p: Part, base: string): A2aPart | undefined {
  switch (p.kind) {
    case 'text':
      return p.text !== undefined ? part({ $case: 'text', value: p.text }, 'text/plain') : undefined;
    case 'data':
      return part({ $case: 'data', value: p.data ?? {} }, 'application/json');
    case 'file':
      if (p.file_id)
        return part({ $case: 'url', value: `${base}/v1/files/${encodeURIComponent(p.file_id)}` }, p.content_type ?? '', p.name ?? '');
      return p.url ? part({ $case: 'url', value: p.url }, p.media_type ?? '', p.filename ?? '') : undefined;
    default:
      return p.url ? part({ $case: 'url', value: p.url }, p.media_type ?? '', p.filename ?? '') : undefined;
  }
}

/** Whether a reply's part is an artifact of the task (a file or structured data) rather than its words. */
export const isArtifactPart = (p: Part): boolean => p.kind === 'file' || p.kind === 'data';

/** The agent's reply as the task's final message (its words and links) and artifacts (files, data). */
export function replyOf(reply: Message, taskId: string, contextId: string, base: string): { message: A2aMessage; artifacts: Artifact[] } {
  const words: A2aPart[] = [];
  const artifacts: Artifact[] = [];
  for (const [i, p] of reply.parts.entries()) {
    const a = a2aPart(p, base);
    if (!a) continue;
    if (!isArtifactPart(p)) {
      words.push(a);
      continue;
    }
    artifacts.push({
      artifactId: `${reply.id}-${i}`,
      name: p.name ?? p.filename ?? (p.kind === 'data' ? 'data' : 'file'),
      description: '',
      parts: [a],
      metadata: { svc_message_id: reply.id },
      extensions: [],
    });
  }
  const message: A2aMessage = {
    messageId: reply.id,
    contextId,
    taskId,
    role: ROLE_AGENT,
    parts: words,
    metadata: { svc_message_id: reply.id, svc_from: reply.from.id },
    extensions: [],
    referenceTaskIds: [],
  };
  return { message, artifacts };
}

/** A status message of the server's own (why a task failed or was canceled). */
export function noteOf(text: string, taskId: string, contextId: string): A2aMessage {
  return {
    messageId: `${taskId}-${Date.now().toString(36)}`,
    contextId,
    taskId,
    role: ROLE_AGENT,
    parts: [part({ $case: 'text', value: text }, 'text/plain')],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
