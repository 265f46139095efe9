// PUT and DELETE /v1/messages/{id}/reactions/{emoji}: who may react, decided on the store's reads
// like a send. A reaction is a small write into the message's conversation, so it follows the
// send rules of that conversation: the caller must be allowed to speak as `from` (the same sender
// checks as POST /v1/messages), a room or thread needs the room's write policy to admit `from`, a
// DM needs `from` to be a participant, and a remote sender comes through its pairing's credential
// into a federated room (the pairings' checkRemoteSender check).

import { AppError, badRequest, conflict, forbidden, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { canSeeMessage, viewerOf } from '../auth/visibility.js';
import { decideRoomWrite } from '../auth/write-policy.js';
import type { ReactionChange, ReactionResult, ReactionSummary, SendRequest, Target } from '../protocol/types.js';
import type { Decision, DecisionReads, RoomRecord } from '../store/types.js';
import type { ReactionChangeOp } from '../store/reactions/ops.js';
import { missingMessage, requireDirectMessages, visibleMessage } from '../network/access.js';
import { commit, newEvent, now, type NetworkContext } from '../network/context.js';
import { resolveSender } from '../network/messages.js';
import { emojiProblem, MAX_DISTINCT_REACTIONS } from './emoji.js';
import { summarize } from '../store/reactions/summary.js';
import { reactionsPart } from '../store/reactions/part.js';
import type { ReactionReads, ReactionRecord } from '../store/reactions/records.js';

export interface ReactRequest {
  message_id: string;
  emoji: string;
  action: 'add' | 'remove';
  /** Who reacts; absent: an agent token's own agent. */
  from?: SendRequest['from'];
}

/** The actor a request reacts as: `from`, or the agent of an agent token. */
function fromOf(p: Principal, from: ReactRequest['from']): SendRequest['from'] {
  if (from) return from;
  if (p.kind === 'agent') return { type: 'agent', id: p.agentId };
  throw badRequest('body.from: required (who reacts) unless the token is an agent token');
}

/** Adds or removes one reaction; refusals are AppErrors (400, 403, 404, 409). */
export async function react(ctx: NetworkContext, p: Principal, req: ReactRequest): Promise<ReactionResult> {
  reactionReads(ctx);
  const problem = emojiProblem(req.emoji);
  if (problem) throw badRequest(`path.emoji: ${problem}`);
  const from = fromOf(p, req.from);
  const outcome = await ctx.store.decide(
    (reads) => decideReaction(ctx, p, req, from, reads),
    (ops) => commit(ctx, ops),
  );
  if (outcome.status === 'limit') {
    throw conflict(`message ${req.message_id} already carries ${MAX_DISTINCT_REACTIONS} distinct reactions; react with one of them`);
  }
  // Removing a reaction that is not there: an unknown entity, as the spec answers any other.
  if (req.action === 'remove' && outcome.status === 'unchanged')
    throw notFound(`reaction ${req.emoji} of ${outcome.by} on message ${req.message_id}`);
  const reactions = summarize(await storedReactions(ctx, req.message_id));
  return {
    message_id: req.message_id,
    emoji: req.emoji,
    by: outcome.by,
    reacted: req.action === 'add',
    changed: outcome.status !== 'unchanged',
    reactions,
  };
}

type Outcome = { status: 'added' | 'removed' | 'unchanged' | 'limit'; by: string };

async function decideReaction(
  ctx: NetworkContext,
  p: Principal,
  req: ReactRequest,
  from: SendRequest['from'],
  reads: DecisionReads,
): Promise<Decision<Outcome>> {
  const stored = await reads.message(req.message_id);
  if (!stored) throw missingMessage(req.message_id);
  const target = stored.message.target;
  const room = target.kind === 'dm' ? undefined : await reads.room(target.room_id);
  // A caller who may not see the message learns from a refusal no more than from a missing id (a
  // room's name, that its sender is no member): every refusal below is then that 404. One who may
  // write there without seeing it (a write-only token) still reacts, as it may send there.
  const visible = canSeeMessage(viewerOf(p), target, room, ctx.config.network.id);
  try {
    return await decideAllowed(ctx, p, req, from, reads, target, room);
  } catch (err) {
    if (!visible && err instanceof AppError) throw missingMessage(req.message_id);
    throw err;
  }
}

async function decideAllowed(
  ctx: NetworkContext,
  p: Principal,
  req: ReactRequest,
  from: SendRequest['from'],
  reads: DecisionReads,
  target: Target,
  room: RoomRecord | undefined,
): Promise<Decision<Outcome>> {
  if (target.kind === 'dm') requireDirectMessages(ctx);
  const home = from.network_id ?? ctx.config.network.id;
  const remote = home !== ctx.config.network.id;
  // The send rules read a send request: this one says where the reaction lands and, for a remote
  // sender, that it originated on the sender's network (what the pairing check asks of relays).
  const send: SendRequest = {
    target,
    from,
    parts: [],
    ...(remote ? { origin: { network_id: home, message_id: req.message_id } } : {}),
  };
  const sender = await resolveSender(ctx, p, send, reads);
  if (target.kind === 'dm') {
    if (!target.participant_ids.includes(sender.scopedId)) throw forbidden(`${sender.scopedId} is not a participant of dm ${target.dm_id}`);
    if (!sender.local) ctx.extensions.checkRemoteSender!(p, send, {});
  } else {
    if (!room || room.removed_at) throw notFound(`room ${target.room_id}`);
    if (!sender.local) ctx.extensions.checkRemoteSender!(p, send, { room });
    const d = decideRoomWrite(p, room, { memberId: sender.memberId, registeredLocalAgent: sender.local && sender.registered });
    if (!d.allow) throw new AppError('forbidden', d.reason);
  }
  const change = (count: number): ReactionChange => ({
    message_id: req.message_id,
    target,
    emoji: req.emoji,
    action: req.action === 'add' ? 'added' : 'removed',
    by: sender.scopedId,
    from: sender.actor,
    count,
  });
  const op: ReactionChangeOp = {
    op: 'reaction.change',
    reaction: { message_id: req.message_id, emoji: req.emoji, by: sender.scopedId },
    action: req.action,
    max_distinct: MAX_DISTINCT_REACTIONS,
    at: now(),
    event: (count) => newEvent(ctx, 'reaction.updated', { reaction: change(count) }),
  };
  return {
    write: [op],
    reply: (result) => {
      const o = result.outcomes[0];
      if (o?.op !== 'reaction.change') throw new Error('unexpected outcome');
      return { status: o.status, by: sender.scopedId };
    },
  };
}

/** GET /v1/messages/{id}/reactions: the reactions of a message the caller may read (as its history). */
export async function messageReactions(
  ctx: NetworkContext,
  p: Principal,
  messageId: string,
): Promise<{ message_id: string; reactions: ReactionSummary[] }> {
  await visibleMessage(ctx, p, messageId);
  return { message_id: messageId, reactions: summarize(await storedReactions(ctx, messageId)) };
}

/** One message's stored reactions; refused when the store keeps none (the reactions feature is off). */
async function storedReactions(ctx: NetworkContext, messageId: string): Promise<ReactionRecord[]> {
  return reactionReads(ctx).list([messageId]);
}

/** The store's reactions; refused (404) when it keeps none: the reactions feature is off (the MCP tool still asks). */
function reactionReads(ctx: NetworkContext): ReactionReads {
  const reads = ctx.store.part(reactionsPart);
  if (!reads) throw notFound('reactions: this network does not keep them');
  return reads;
}
