// read_messages and send_message over the typed HTTP client.

import { ClientError } from '../client/errors.js';
import type { Message, Page, Unmentioned } from '../protocol/types.js';
import { readTarget, sendBody, sendPlan, type SendArgs } from './args.js';
import { markRead, type ToolContext } from './conversations.js';
import { dmIdFor } from '../network/messages.js';
import { normalizeMember } from '../network/members.js';
import { conversationOf, type Conversation, type Self } from './format.js';

export interface ReadArgs {
  room_id?: string | undefined;
  thread_id?: string | undefined;
  dm_id?: string | undefined;
  limit?: number | undefined;
  before?: string | undefined;
}

export interface ReadResult {
  conversation: Conversation;
  messages: Message[];
  page: Page;
}

/** A page of history, oldest first; reading the newest page marks the conversation read. */
export async function readMessages(ctx: ToolContext, a: ReadArgs): Promise<ReadResult> {
  const t = readTarget(a);
  // `as`: the read counts as this agent's (its read marks, its delivery state) also when svc mcp runs on an operator token.
  const q = { limit: a.limit ?? 20, ...(a.before ? { before: a.before } : {}), as: ctx.self.agent_id };
  const { client } = ctx;
  let conversation: Conversation;
  let r: { messages: Message[]; page: Page };
  if (t.kind === 'room') {
    r = await client.roomMessages(t.id, q);
    conversation = { kind: 'room', room_id: t.id };
  } else if (t.kind === 'thread') {
    r = await client.threadMessages(t.id, q);
    const first = r.messages[0]?.target;
    conversation = {
      kind: 'thread',
      room_id: first?.kind === 'thread' ? first.room_id : (await client.getThread(t.id)).room_id,
      thread_id: t.id,
    };
  } else {
    r = await client.dmMessages(t.id, q);
    const first = r.messages[0]?.target;
    if (first?.kind === 'dm') conversation = conversationOf(first);
    else {
      const dm = await client.getDm(t.id);
      conversation = { kind: 'dm', dm_id: dm.id, participant_ids: dm.participant_ids };
    }
  }
  if (!a.before) await markRead(ctx, conversation, r.messages);
  return { conversation, messages: r.messages, page: r.page };
}

export interface SendResult {
  message_id: string;
  conversation: Conversation;
  thread_created: boolean;
  dm_created: boolean;
  /** Mention candidates that resolved to no member, why, and the fix (the send answer's). */
  unmentioned?: Unmentioned[];
}

/** Sends as this agent; a thread named without its room is looked up first. */
export async function sendMessage(ctx: ToolContext, a: SendArgs): Promise<SendResult> {
  const plan = sendPlan(a);
  let roomOfThread: string | undefined;
  if (plan.kind === 'thread' && plan.room_id === undefined) {
    try {
      roomOfThread = (await ctx.client.getThread(plan.thread_id)).room_id;
    } catch (err) {
      // Unknown thread: sendBody explains how to start one.
      if (!(err instanceof ClientError && err.status === 404)) throw err;
    }
  }
  const body = sendBody(plan, roomOfThread, ctx.self.agent_id, a);
  const r = await ctx.client.send(body);
  const t = body.target;
  let conversation: Conversation;
  if (t.kind === 'room') conversation = { kind: 'room', room_id: t.room_id };
  else if (t.kind === 'thread') conversation = { kind: 'thread', room_id: t.room_id, thread_id: t.thread_id };
  else if (t.dm_id !== undefined) {
    const dm = await ctx.client.getDm(t.dm_id);
    conversation = { kind: 'dm', dm_id: dm.id, participant_ids: dm.participant_ids };
  } else conversation = dmOfParticipants(ctx.self, t.participant_ids ?? []);
  return {
    message_id: r.message_id,
    conversation,
    thread_created: r.thread_created,
    dm_created: r.dm_created,
    ...(r.unmentioned && r.unmentioned.length > 0 ? { unmentioned: r.unmentioned } : {}),
  };
}

/** The DM a participant set lands in: the server's rule (one participant set is one DM). */
export function dmOfParticipants(self: Self, others: readonly string[]): Conversation {
  const set = new Set([self.scoped]);
  for (const raw of others) {
    const m = normalizeMember(self.network_id, raw) ?? raw;
    set.add(m.includes(':') ? m : `${self.network_id}:${m}`);
  }
  const participant_ids = [...set].sort();
  return { kind: 'dm', dm_id: dmIdFor(participant_ids), participant_ids };
}
