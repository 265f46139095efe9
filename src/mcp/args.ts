// Tool arguments to requests: which conversation a call names. Pure, so every combination is tested
// with exact values; the messages say what to pass instead, because a model reads them.

import type { Part, SendRequest } from '../protocol/types.js';

/** The conversation named by read_messages (exactly one id). */
export type ReadTarget = { kind: 'room'; id: string } | { kind: 'thread'; id: string } | { kind: 'dm'; id: string };

/** A tool call whose arguments do not make sense; its message becomes the tool error. */
export class ArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgumentError';
  }
}

const given = (v: string | undefined): v is string => v !== undefined && v !== '';

export function readTarget(a: { room_id?: string | undefined; thread_id?: string | undefined; dm_id?: string | undefined }): ReadTarget {
  const named = [
    ...(given(a.room_id) ? [{ kind: 'room' as const, id: a.room_id }] : []),
    ...(given(a.thread_id) ? [{ kind: 'thread' as const, id: a.thread_id }] : []),
    ...(given(a.dm_id) ? [{ kind: 'dm' as const, id: a.dm_id }] : []),
  ];
  if (named.length !== 1) {
    throw new ArgumentError(
      `pass exactly one of room_id, thread_id or dm_id (got ${named.length === 0 ? 'none' : named.map((n) => `${n.kind}_id`).join(' and ')}); list_conversations shows them`,
    );
  }
  return named[0]!;
}

export interface SendArgs {
  room_id?: string | undefined;
  thread_id?: string | undefined;
  parent_message_id?: string | undefined;
  dm_with?: string[] | undefined;
  dm_id?: string | undefined;
  text: string;
  mentions?: string[] | undefined;
  /** Parts after the text (send_file's file); with them the text may be empty. */
  parts?: Part[] | undefined;
}

/** Where send_message goes, before the thread's room is looked up. */
export type SendPlan =
  | { kind: 'room'; room_id: string }
  | { kind: 'thread'; thread_id: string; room_id?: string; parent_message_id?: string }
  | { kind: 'dm'; participant_ids: string[] }
  | { kind: 'dm'; dm_id: string };

export function sendPlan(a: SendArgs): SendPlan {
  if (a.text.trim() === '' && !a.parts?.length) throw new ArgumentError('text: must not be empty');
  const dmWith = a.dm_with?.filter((x) => x !== '') ?? [];
  const where = [given(a.thread_id) && 'thread_id', dmWith.length > 0 && 'dm_with', given(a.dm_id) && 'dm_id'].filter((x): x is string =>
    Boolean(x),
  );
  if (where.length > 1) throw new ArgumentError(`pass only one of thread_id, dm_with or dm_id (got ${where.join(' and ')})`);
  if (a.dm_with !== undefined && a.dm_with.length > 0 && dmWith.length === 0)
    throw new ArgumentError('dm_with: name at least one agent id');
  if (given(a.parent_message_id) && !given(a.thread_id)) {
    throw new ArgumentError('parent_message_id starts a thread: pass it with thread_id (a new id of your choice) and room_id');
  }
  if (given(a.thread_id)) {
    return {
      kind: 'thread',
      thread_id: a.thread_id,
      ...(given(a.room_id) ? { room_id: a.room_id } : {}),
      ...(given(a.parent_message_id) ? { parent_message_id: a.parent_message_id } : {}),
    };
  }
  if (given(a.room_id) && (dmWith.length > 0 || given(a.dm_id)))
    throw new ArgumentError('pass room_id or a DM (dm_with / dm_id), not both');
  if (dmWith.length > 0) return { kind: 'dm', participant_ids: dmWith };
  if (given(a.dm_id)) return { kind: 'dm', dm_id: a.dm_id };
  if (given(a.room_id)) return { kind: 'room', room_id: a.room_id };
  throw new ArgumentError(
    'say where: pass room_id, thread_id (with room_id and parent_message_id to start a thread), dm_with (agent ids) or dm_id',
  );
}

/** The POST /v1/messages body for a resolved plan (a thread's room is known by now). */
export function sendBody(plan: SendPlan, roomOfThread: string | undefined, agentId: string, a: SendArgs): SendRequest {
  let target: SendRequest['target'];
  if (plan.kind === 'room') target = { kind: 'room', room_id: plan.room_id };
  else if (plan.kind === 'thread') {
    const room = plan.room_id ?? roomOfThread;
    if (room === undefined)
      throw new ArgumentError(`thread ${plan.thread_id} does not exist yet: to start it pass room_id and parent_message_id too`);
    target = {
      kind: 'thread',
      room_id: room,
      thread_id: plan.thread_id,
      ...(plan.parent_message_id ? { parent_message_id: plan.parent_message_id } : {}),
    };
  } else if ('dm_id' in plan) target = { kind: 'dm', dm_id: plan.dm_id };
  else target = { kind: 'dm', participant_ids: plan.participant_ids };
  const mentions = a.mentions?.filter((m) => m !== '') ?? [];
  return {
    target,
    from: { type: 'agent', id: agentId },
    parts: [...(a.text.trim() !== '' ? [{ kind: 'text' as const, text: a.text }] : []), ...(a.parts ?? [])],
    ...(mentions.length > 0 ? { mentions } : {}),
  };
}
