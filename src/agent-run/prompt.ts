// What a run gets: the prompt on stdin, environment variables naming the conversation, and the
// reply's message id. Pure, so the exact text is tested.

import { createHash } from 'node:crypto';
import { conversationOf, sessionKeyOf } from '../client/index.js';
import type { Message, SendRequest, Target } from '../protocol/types.js';

export interface RunInput {
  networkId: string;
  agentId: string;
  /** The waking messages, oldest first (one conversation). */
  wakes: Message[];
  /** Recent messages of the conversation, oldest first (may include the wakes). */
  recent: Message[];
}

const partText = (p: Message['parts'][number]): string => {
  if (p.kind === 'text') return p.text ?? '';
  const f = p as { file_id?: unknown; name?: unknown; size?: unknown };
  if (p.kind === 'file' && typeof f.file_id === 'string')
    return `[file ${String(f.name ?? f.file_id)}, ${String(f.size ?? '?')} bytes, ${f.file_id}]`;
  return `[${p.kind}${p.filename ? ` ${p.filename}` : p.url ? ` ${p.url}` : ''}]`;
};
const textOf = (m: Message) => m.parts.map(partText).join(' ');
const who = (m: Message) => (m.from.network_id && m.from.network_id !== m.network_id ? `${m.from.network_id}:${m.from.id}` : m.from.id);
const line = (m: Message) => `[${m.created_at}] ${who(m)}${m.from.type === 'agent' ? '' : ` (${m.from.type})`} (id ${m.id}): ${textOf(m)}`;

/** Where a conversation is, in words. */
export function whereOf(t: Target): string {
  if (t.kind === 'room') return `room ${t.room_id}`;
  if (t.kind === 'thread') return `thread ${t.thread_id} in room ${t.room_id}`;
  return `direct conversation ${t.dm_id} with ${t.participant_ids.join(', ')}`;
}

/** The prompt: who and where, recent context, then the new message(s) and where their files are. */
export function promptOf(r: RunInput, files: readonly string[] = []): string {
  const target = r.wakes[0]!.target;
  const wakeIds = new Set(r.wakes.map((m) => m.id));
  const context = r.recent.filter((m) => !wakeIds.has(m.id));
  const out = [
    `You are agent ${r.agentId} on the svc network ${r.networkId}.`,
    `Conversation: ${whereOf(target)} (session key ${sessionKeyOf(r.networkId, target)}).`,
    '',
  ];
  if (context.length > 0) out.push('Recent messages, oldest first:', ...context.map(line), '');
  out.push(r.wakes.length === 1 ? 'New message for you:' : `New messages for you (${r.wakes.length}):`, ...r.wakes.map(line), '');
  if (files.length > 0) out.push('Their files, readable until you finish (also in $SVC_FILES, one path a line):', ...files, '');
  out.push('Write your reply. Whatever you print is posted in this conversation as your message; print nothing to stay silent.');
  return `${out.join('\n')}\n`;
}

/**
 * The reply's message id, derived from the waking messages: a re-run of the same wakes after a
 * crash posts with the same id, and the server stores it once.
 */
export function replyIdOf(agentId: string, wakeIds: readonly string[]): string {
  const h = createHash('sha256')
    .update([...wakeIds].sort().join('\n'))
    .digest('base64url')
    .slice(0, 22);
  return `re-${agentId}-${h}`;
}

/** Where a reply goes: the same conversation (a thread stays a thread, a DM a DM). */
export function replyTarget(t: Target): SendRequest['target'] {
  if (t.kind === 'room') return { kind: 'room', room_id: t.room_id };
  if (t.kind === 'thread') return { kind: 'thread', room_id: t.room_id, thread_id: t.thread_id };
  return { kind: 'dm', dm_id: t.dm_id };
}

/** The environment of a run (added to the inherited one): it needs no context, so the command need not wait for it. */
export function runEnv(r: Omit<RunInput, 'recent'>, o: { url: string; token?: string; replyId: string }): Record<string, string> {
  const t = r.wakes[0]!.target;
  const last = r.wakes[r.wakes.length - 1]!;
  return {
    SVC_URL: o.url,
    ...(o.token !== undefined ? { SVC_TOKEN: o.token } : {}),
    SVC_NETWORK: r.networkId,
    SVC_AGENT: r.agentId,
    SVC_CONVERSATION: conversationOf(t),
    SVC_SESSION_KEY: sessionKeyOf(r.networkId, t),
    SVC_TARGET_KIND: t.kind,
    ...(t.kind !== 'dm' ? { SVC_ROOM_ID: t.room_id } : { SVC_DM_ID: t.dm_id }),
    ...(t.kind === 'thread' ? { SVC_THREAD_ID: t.thread_id } : {}),
    SVC_MESSAGE_IDS: r.wakes.map((m) => m.id).join(','),
    SVC_MESSAGE_ID: last.id,
    SVC_FROM: who(last),
    SVC_REPLY_ID: o.replyId,
  };
}
