// svc message parts <-> A2A 1.0 parts, and an A2A answer (a Message, or a Task with its status
// message and artifacts) as the parts of the reply svc posts. Pure: the SDK's types only, no I/O;
// file bytes are handed back for the caller to upload.

import { type Message as A2aMessage, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { Part } from '../../protocol/types.js';

type A2aPart = A2aMessage['parts'][number];

/** A reply part: an svc part, or bytes the caller stores as a file first. */
export type ReplyPart = { part: Part } | { bytes: Buffer; name: string; mediaType: string };

/** What an A2A answer comes to: the reply's parts, and whether the task ended badly (and how). */
export interface Reply {
  parts: ReplyPart[];
  /** The task's state when it is not a success (`failed`, `rejected`, `input-required`, ...); absent for a Message or a completed Task. */
  state?: string;
}

const a2aPart = (content: A2aPart['content'], o: { filename?: string; mediaType?: string } = {}): A2aPart => ({
  content,
  metadata: undefined,
  filename: o.filename ?? '',
  mediaType: o.mediaType ?? '',
});

/** The A2A parts of an svc message; a stored file goes as a URL to svc's download route (`filesBase`, when known). */
export function toA2aParts(parts: readonly Part[], filesBase: string | undefined): A2aPart[] {
  const out: A2aPart[] = [];
  for (const p of parts) {
    if (p.kind === 'text' && p.text !== undefined) out.push(a2aPart({ $case: 'text', value: p.text }));
    else if (p.kind === 'data' && p.data !== undefined) out.push(a2aPart({ $case: 'data', value: p.data }));
    else if (p.kind === 'file' && p.file_id !== undefined && filesBase !== undefined)
      out.push(
        a2aPart(
          { $case: 'url', value: `${filesBase}/v1/files/${p.file_id}` },
          { ...(p.name ? { filename: p.name } : {}), ...(p.content_type ? { mediaType: p.content_type } : {}) },
        ),
      );
    else if (p.url !== undefined)
      out.push(
        a2aPart(
          { $case: 'url', value: p.url },
          { ...(p.filename ? { filename: p.filename } : {}), ...(p.media_type ? { mediaType: p.media_type } : {}) },
        ),
      );
  }
  return out;
}

/** The outgoing A2A message of an svc message (the user's turn); `contextId` empty on a conversation's first. */
export function outgoingMessage(messageId: string, contextId: string, parts: A2aPart[], metadata: Record<string, unknown>): A2aMessage {
  return { messageId, contextId, taskId: '', role: Role.ROLE_USER, parts, metadata, extensions: [], referenceTaskIds: [] };
}

/** One A2A part as a reply part; undefined for a part with no content. */
function replyPart(p: A2aPart, fallbackName: string): ReplyPart | undefined {
  const c = p.content;
  if (!c) return undefined;
  const media = p.mediaType ? { media_type: p.mediaType } : {};
  const filename = p.filename ? { filename: p.filename } : {};
  switch (c.$case) {
    case 'text':
      return { part: { kind: 'text', text: c.value } };
    case 'data': {
      // svc's data part holds an object: any other JSON value is wrapped.
      const v: unknown = c.value;
      const data = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
      return { part: { kind: 'data', data, ...media } };
    }
    case 'url':
      return { part: { kind: 'url', url: c.value, ...media, ...filename } };
    case 'raw':
      return { bytes: c.value, name: p.filename || fallbackName, mediaType: p.mediaType || 'application/octet-stream' };
  }
}

const STATE_WORDS: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
};

/** Whether a task is still running (the caller asks again with GetTask). */
export function stillRunning(t: Task): boolean {
  const s = t.status?.state;
  return s === TaskState.TASK_STATE_SUBMITTED || s === TaskState.TASK_STATE_WORKING;
}

/** The reply an A2A answer makes: a Message's parts, or a Task's status message then each artifact's parts. */
export function replyOf(answer: A2aMessage | Task): Reply {
  if ('messageId' in answer) return { parts: parts(answer.parts, 'reply') };
  const out: ReplyPart[] = [...parts(answer.status?.message?.parts ?? [], 'reply')];
  for (const a of answer.artifacts) out.push(...parts(a.parts, a.name || a.artifactId || 'artifact'));
  const state = answer.status ? STATE_WORDS[answer.status.state] : undefined;
  return { parts: out, ...(state ? { state } : {}) };
}

function parts(list: readonly A2aPart[], name: string): ReplyPart[] {
  return list.flatMap((p) => {
    const r = replyPart(p, name);
    return r ? [r] : [];
  });
}

/** The conversation's key an A2A context is kept under: the thread, room or DM the message is in. */
export function conversationOf(target: { kind: string; room_id?: string; thread_id?: string; dm_id?: string }): string {
  if (target.kind === 'thread') return `thread:${target.thread_id}`;
  if (target.kind === 'dm') return `dm:${target.dm_id}`;
  return `room:${target.room_id}`;
}
