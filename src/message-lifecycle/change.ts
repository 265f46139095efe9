// PATCH and DELETE /v1/messages/{id} (#40 parts 1 and 2): who may change a message, decided on the
// store's reads like a send. A message is changed by its sender (the caller must be allowed to
// speak as the message's `from`, by the same checks as POST /v1/messages) or by an operator with
// the admin scope, and only on its home network: a relayed copy changes when its home network
// relays the change, through the pairing's credential, as the sender of that network.

import { AppError, badRequest, conflict, forbidden } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { canSeeMessage, viewerOf } from '../auth/visibility.js';
import type { EditRequest, Message, SendRequest } from '../protocol/types.js';
import { StoreError, type Decision, type DecisionReads, type MessageRecord, type RoomRecord, type WriteOp } from '../store/types.js';
import { missingMessage, requireDirectMessages } from '../network/access.js';
import { batchOf, commit, newEvent, now, type NetworkContext } from '../network/context.js';
import { scopedMembers } from '../network/members.js';
import { artifactsOf, mentionsOf, resolveSender, wirePart } from '../network/messages.js';

/** Who changes a message: `from` (as on a send), or the agent of an agent token; absent for an operator acting as such. */
export type Changer = SendRequest['from'] | undefined;

/** PATCH /v1/messages/{id}: the request, with who edits (absent: the token's own agent, or an operator). */
export interface EditMessageRequest extends EditRequest {
  from?: SendRequest['from'];
  /** Refused (409) unless the message is at this version. */
  expect_version?: number;
  /** A relayed edit's version on the message's home network (relay.ts); only on a relayed copy. */
  version?: number;
}

/** Edits a message; gives it as edited. Refusals are AppErrors (400, 403, 404, 409). */
export async function editMessage(ctx: NetworkContext, p: Principal, id: string, req: EditMessageRequest): Promise<Message> {
  if (req.parts.length === 0) throw badRequest('body.parts: must hold at least one part');
  return change(ctx, p, id, req.from, async (rec, room) => {
    const m = rec.message;
    if (m.deleted_at !== undefined) throw conflict(`message ${id} was deleted; a deleted message cannot be edited`);
    const net = ctx.config.network.id;
    const scope = m.target.kind === 'dm' ? m.target.participant_ids : scopedMembers(net, room?.members ?? []);
    // What features add (file references), decided with the edit and written in its batch.
    const added = await batchOf(ctx, { id, conv: rec.conv, target: m.target, parts: req.parts.map(wirePart), principal: p });
    const parts = [...added.parts];
    const { mentions } = mentionsOf(ctx, { parts, ...(req.mentions ? { mentions: req.mentions } : {}) }, scope);
    // A relayed copy changes only by its home network's relay, which names the version the edit
    // made there and sends it again when it got no answer (the peer may have applied it). A copy
    // already at that version is answered as it is, not made a second version with a second
    // message.edited. A copy behind it (it missed an edit, or got the message as already edited)
    // takes the edit: the content follows home even when the version counts differ.
    if (req.version !== undefined) {
      if (!m.origin) throw badRequest(`body.version: message ${id} was sent on this network; only a relayed edit names a version`);
      if ((m.version ?? 1) >= req.version) return undefined;
    }
    const edit: WriteOp = {
      op: 'message.edit',
      id,
      parts,
      mentions,
      at: now(),
      ...(req.expect_version !== undefined ? { expect_version: req.expect_version } : {}),
      artifacts: (edited) => artifactsOf(net, edited),
      event: (message, mentions_added) => newEvent(ctx, 'message.edited', { message, mentions_added }),
    };
    return [edit, ...added.ops];
  });
}

/** Deletes a message, leaving a tombstone; gives the tombstone. Deleting a tombstone again answers it unchanged. */
export async function deleteMessage(ctx: NetworkContext, p: Principal, id: string, from: Changer): Promise<Message> {
  return change(ctx, p, id, from, async () => ({
    op: 'message.delete',
    id,
    at: now(),
    event: (message) => newEvent(ctx, 'message.deleted', { message }),
  }));
}

/**
 * Redacts a message (#40 part 3): a tombstone, as a delete leaves, and its content scrubbed from
 * everything the store keeps. By an operator with the admin scope, on any message this network
 * keeps (a relayed copy too: what is scrubbed is this network's storage); or by the pairing of the
 * message's home network, relaying a redaction made there (relay.ts). A redacted message answers
 * unchanged.
 */
export async function redactMessage(ctx: NetworkContext, p: Principal, id: string, from: Changer): Promise<Message> {
  return change(
    ctx,
    p,
    id,
    from,
    async () => ({
      op: 'message.redact',
      id,
      at: now(),
      event: (message) => newEvent(ctx, 'message.redacted', { message }),
    }),
    mayRedact,
  );
}

/**
 * The write a change comes to (the change's op first, then what features add to its batch);
 * undefined when it changes nothing (the message is answered as it is).
 */
type OpOf = (rec: MessageRecord, room: RoomRecord | undefined) => Promise<WriteOp | WriteOp[] | undefined>;

/** Who may make a change: refuses (403) anyone else. */
type May = (
  ctx: NetworkContext,
  p: Principal,
  m: Message,
  from: Changer,
  reads: DecisionReads,
  room: RoomRecord | undefined,
) => Promise<void>;

async function change(ctx: NetworkContext, p: Principal, id: string, from: Changer, opOf: OpOf, may: May = mayChange): Promise<Message> {
  try {
    return await ctx.store.decide(
      (reads) => decideChange(ctx, p, id, from, reads, opOf, may),
      (ops) => commit(ctx, ops),
    );
  } catch (err) {
    if (err instanceof StoreError && err.code === 'conflict') throw conflict(err.message);
    if (err instanceof StoreError && err.code === 'not_found') throw missingMessage(id);
    throw err;
  }
}

async function decideChange(
  ctx: NetworkContext,
  p: Principal,
  id: string,
  from: Changer,
  reads: DecisionReads,
  opOf: OpOf,
  may: May,
): Promise<Decision<Message>> {
  const rec = await reads.message(id);
  if (!rec) throw missingMessage(id);
  const target = rec.message.target;
  const room = target.kind === 'dm' ? undefined : await reads.room(target.room_id);
  // A caller who may not see the message learns no more from a refusal than from a missing id.
  const visible = canSeeMessage(viewerOf(p), target, room, ctx.config.network.id);
  try {
    if (target.kind === 'dm') requireDirectMessages(ctx);
    await may(ctx, p, rec.message, from, reads, room);
  } catch (err) {
    if (!visible && err instanceof AppError) throw missingMessage(id);
    throw err;
  }
  const op = await opOf(rec, room);
  if (!op) {
    return { answer: rec.message };
  }
  return {
    write: Array.isArray(op) ? op : [op],
    reply: (result) => {
      const o = result.outcomes[0];
      if (o?.op !== 'message.edit' && o?.op !== 'message.delete' && o?.op !== 'message.redact') throw new Error('unexpected outcome');
      return o.record.message;
    },
  };
}

/**
 * Refuses (403) a caller who is neither the message's sender nor an operator of its home network.
 * The sender is proven as a send proves `from`: an agent token for its agent, a static token for
 * the agents it may act as, a pairing's credential for its own network's senders.
 */
async function mayChange(
  ctx: NetworkContext,
  p: Principal,
  m: Message,
  from: Changer,
  reads: DecisionReads,
  room: RoomRecord | undefined,
): Promise<void> {
  const net = ctx.config.network.id;
  const home = m.from.network_id;
  const claimed = from ?? (p.kind === 'agent' ? { type: 'agent', id: p.agentId } : undefined);
  if (claimed) {
    const claimedHome = claimed.network_id ?? net;
    if (claimed.id !== m.from.id || claimedHome !== home || (claimed.type === 'agent') !== (m.from.type === 'agent'))
      throw forbidden(`only the sender of message ${m.id} (${home}:${m.from.id}) or an operator may change it`);
    await proveSender(ctx, p, m, { ...claimed, network_id: claimedHome }, reads, room);
    return;
  }
  if (home !== net || m.origin) throw forbidden(`message ${m.id} was sent on network ${home}; only that network may change it`);
  // No `from`: the caller changes it as its sender when it may speak as the sender, else as an operator.
  try {
    await proveSender(ctx, p, m, m.from, reads, room);
  } catch (err) {
    if (!(err instanceof AppError) || !isAdmin(p)) throw err;
  }
}

/**
 * Refuses (403) all but an operator, and the pairing of a relayed copy's home network relaying
 * that network's redaction as the message's sender (proven as for any change).
 */
const mayRedact: May = async (ctx, p, m, from, reads, room) => {
  if (isAdmin(p)) return;
  const home = m.from.network_id;
  if (from && m.origin && home !== ctx.config.network.id && (from.network_id ?? ctx.config.network.id) === home) {
    await mayChange(ctx, p, m, from, reads, room);
    return;
  }
  throw forbidden(`only an operator (the admin scope) may redact message ${m.id}`);
};

/** Refuses (403) a caller who may not speak as `from` in the message's conversation, as a send would. */
async function proveSender(
  ctx: NetworkContext,
  p: Principal,
  m: Message,
  from: SendRequest['from'],
  reads: DecisionReads,
  room: RoomRecord | undefined,
): Promise<void> {
  const remote = from.network_id !== ctx.config.network.id;
  const send: SendRequest = {
    target: m.target,
    from,
    parts: [],
    ...(remote ? { origin: { network_id: from.network_id!, message_id: m.id } } : {}),
  };
  const sender = await resolveSender(ctx, p, send, reads);
  if (!sender.local) ctx.extensions.checkRemoteSender!(p, send, room ? { room } : {});
}

const isAdmin = (p: Principal): boolean => p.kind === 'trusted' || (p.kind === 'static' && p.scopes.has('admin'));
