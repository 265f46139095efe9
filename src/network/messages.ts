// POST /v1/messages: who may send, where it lands (room, lazily created thread or DM), mentions,
// artifacts and events, idempotent by message id.

import { createHash } from 'node:crypto';
import { AppError, badRequest, conflict, forbidden, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { agentSenderRefusal, humanSenderRefusal, localSenderRefusal } from '../auth/senders.js';
import { decideRoomWrite } from '../auth/write-policy.js';
import { fqid, isId, newId, MESSAGE_ID_PATTERN } from '../protocol/ids.js';
import { resolveMentionsExplained, type Unresolved } from '../protocol/mentions.js';
import type { Actor, Artifact, Message, Part, SendRequest, SendResponse, Target } from '../protocol/types.js';
import { StoreError, convKeyOf, type Decision, type DecisionReads, type MessageInsertOp, type RoomRecord } from '../store/types.js';
import { batchOf, commit, newEvent, now, type NetworkContext } from './context.js';
import { requireDirectMessages } from './access.js';
import { normalizeMember, scopedMembers } from './members.js';
import { explainUnmentioned, UNMENTIONED_MAX } from './unmentioned.js';
import { dmView, threadView } from './views.js';

/** The DM id of a participant set: one set is one DM, on every network that computes it. */
export function dmIdFor(participants: readonly string[]): string {
  return `dm_${createHash('sha256')
    .update([...participants].sort().join('\n'))
    .digest('hex')
    .slice(0, 20)}`;
}

export interface Sender {
  actor: Actor;
  /** `net:id` */
  scopedId: string;
  /** Room member form: bare when local. */
  memberId: string;
  local: boolean;
  registered: boolean;
}

/** Checks that the caller may speak as `from`; returns the full actor. */
export async function resolveSender(ctx: NetworkContext, p: Principal, req: SendRequest, reads: DecisionReads): Promise<Sender> {
  const net = ctx.config.network.id;
  const from = req.from;
  const home = from.network_id ?? net;
  if (!isId(from.id)) throw badRequest('body.from.id: must be an id: letters, digits, . _ - (max 64), starting with a letter or digit');
  if (!isId(home)) throw badRequest('body.from.network_id: must be a network id');
  const actor: Actor = {
    type: from.type,
    id: from.id,
    ...(from.name ? { name: from.name } : {}),
    network_id: home,
    fqid: fqid(home, 'agents', from.id),
  };
  const human = from.type !== 'agent';
  if (human && !ctx.config.server.human_ingress)
    throw forbidden('human messages are disabled on this network (server.human_ingress: false)');
  if (home !== net) {
    if (!ctx.extensions.checkRemoteSender)
      throw forbidden(`sender network ${home} is not this network (${net}); only paired networks relay remote senders`);
    return { actor, scopedId: `${home}:${from.id}`, memberId: `${home}:${from.id}`, local: false, registered: false };
  }
  const local = localSenderRefusal(p, req.origin !== undefined);
  if (local) throw forbidden(local);
  const agent = await reads.agent(from.id);
  if (from.type === 'agent') {
    const refusal = agentSenderRefusal(p, from.id, agent?.credential_key);
    if (refusal) throw forbidden(refusal);
    return { actor, scopedId: `${net}:${from.id}`, memberId: from.id, local: true, registered: agent !== undefined };
  }
  // Every non-agent actor is human ingress.
  const refusal = humanSenderRefusal(p, from.id, agent !== undefined);
  if (refusal) throw forbidden(refusal);
  actor.fqid = `svc://${net}/humans/${from.id}`;
  // Members are matched by id whatever the actor type: since a person cannot take a registered
  // agent's id (above), a member id that is not a registered agent names that person.
  return { actor, scopedId: `${net}:${from.id}`, memberId: from.id, local: true, registered: false };
}

/**
 * Where a message lands. Thread and DM records are read only for what never changes once stored
 * (a thread's room and parent, a DM's participants); creating and counting them is the store's
 * message.insert intent.
 */
interface Placement {
  target: Target;
  room?: RoomRecord;
  thread?: { id: string; room_id: string; parent_message_id?: string };
  dm?: { id: string; participant_ids: string[] };
  /** Scoped ids that mentions resolve against. */
  mentionScope: string[];
}

async function placeInRoom(reads: DecisionReads, roomId: string, early?: Promise<RoomRecord | undefined>): Promise<RoomRecord> {
  const room = await (early ?? reads.room(roomId));
  if (!room || room.removed_at) throw notFound(`room ${roomId}`);
  return room;
}

async function place(
  ctx: NetworkContext,
  req: SendRequest,
  sender: Sender,
  reads: DecisionReads,
  early?: Promise<RoomRecord | undefined>,
): Promise<Placement> {
  const net = ctx.config.network.id;
  const t = req.target;
  if (t.kind === 'room') {
    const room = await placeInRoom(reads, t.room_id, early);
    return { target: { kind: 'room', room_id: room.id }, room, mentionScope: scopedMembers(net, room.members) };
  }
  if (t.kind === 'thread') {
    const room = await placeInRoom(reads, t.room_id, early);
    if (!isId(t.thread_id)) throw badRequest('body.target.thread_id: must be an id: letters, digits, . _ - (max 64)');
    const existing = await reads.thread(t.thread_id);
    if (existing && existing.room_id !== room.id) throw conflict(`thread ${t.thread_id} belongs to room ${existing.room_id}`);
    // A thread's parent is fixed by its first message; later ones follow it.
    const parent = existing ? existing.parent_message_id : t.parent_message_id;
    if (!existing && parent !== undefined) {
      const pm = await reads.message(parent);
      if (!pm || pm.conv !== `room:${room.id}`) throw notFound(`parent message ${parent} in room ${room.id}`);
    }
    const thread = { id: t.thread_id, room_id: room.id, ...(parent ? { parent_message_id: parent } : {}) };
    const target: Target = {
      kind: 'thread',
      room_id: room.id,
      thread_id: thread.id,
      ...(thread.parent_message_id ? { parent_message_id: thread.parent_message_id } : {}),
    };
    return { target, room, thread, mentionScope: scopedMembers(net, room.members) };
  }
  // DM
  requireDirectMessages(ctx);
  let participants: string[] | undefined;
  if (t.participant_ids !== undefined) {
    const set = new Set<string>([sender.scopedId]);
    t.participant_ids.forEach((raw, i) => {
      const m = normalizeMember(net, raw);
      if (m === undefined)
        throw badRequest(`body.target.participant_ids[${i}]: must be <network_id>:<agent_id>, an agent id or an agent FQID`);
      set.add(m.includes(':') ? m : `${net}:${m}`);
    });
    participants = [...set].sort();
    if (participants.length < 2) throw badRequest('body.target.participant_ids: a DM needs at least one participant besides the sender');
  }
  if (participants) {
    const derived = dmIdFor(participants);
    if (t.dm_id !== undefined && t.dm_id !== derived) {
      const named = await reads.dm(t.dm_id);
      if (named) throw conflict(`dm ${t.dm_id} has other participants than body.target.participant_ids`);
      throw badRequest('body.target.dm_id: does not match participant_ids (one participant set is one DM)');
    }
    // The id is derived from the participant set, so a stored DM of this id has these participants.
    const dm = { id: derived, participant_ids: participants };
    return { target: { kind: 'dm', dm_id: derived, participant_ids: participants }, dm, mentionScope: participants };
  }
  if (t.dm_id === undefined) throw badRequest('body.target: a DM target needs dm_id or participant_ids');
  const existing = await reads.dm(t.dm_id);
  if (!existing) throw notFound(`dm ${t.dm_id}`);
  if (!existing.participant_ids.includes(sender.scopedId)) throw forbidden(`${sender.scopedId} is not a participant of dm ${existing.id}`);
  const dm = { id: existing.id, participant_ids: existing.participant_ids };
  return {
    target: { kind: 'dm', dm_id: existing.id, participant_ids: existing.participant_ids },
    dm,
    mentionScope: existing.participant_ids,
  };
}

const PART_FIELDS = [
  'kind',
  'text',
  'url',
  'media_type',
  'filename',
  'data',
  'file_id',
  'name',
  'content_type',
  'size',
  'origin_file',
] as const;
/** The fields of an uploaded file's part (#41): kept on `file` parts only. */
const FILE_FIELDS: ReadonlySet<string> = new Set(['file_id', 'name', 'content_type', 'size', 'origin_file']);

/** A part with only its wire fields: unknown request fields are ignored, not stored or relayed. */
export function wirePart(part: Part): Part {
  const out: Partial<Record<(typeof PART_FIELDS)[number], unknown>> = {};
  for (const k of PART_FIELDS) if (part[k] !== undefined && (part.kind === 'file' || !FILE_FIELDS.has(k))) out[k] = part[k];
  return out as Part;
}

/** The artifacts a message carries: one per non-text part. */
export function artifactsOf(net: string, m: Message): Artifact[] {
  const out: Artifact[] = [];
  if (m.parts.every((part) => part.kind === 'text')) return out;
  m.parts.forEach((part, i) => {
    if (part.kind === 'text') return;
    const id = newId('art');
    out.push({
      id,
      network_id: net,
      fqid: fqid(net, 'artifacts', id),
      message_id: m.id,
      target: m.target,
      part_index: i,
      kind: part.kind,
      ...((part.media_type ?? part.content_type) ? { media_type: part.media_type ?? part.content_type } : {}),
      ...((part.filename ?? part.name) ? { filename: part.filename ?? part.name } : {}),
      ...(part.url ? { url: part.url } : {}),
      created_at: m.created_at,
    });
  });
  return out;
}

/** The message's resolved mentions (from its text parts and the explicit field), and the candidates that did not resolve. */
export function mentionsOf(
  ctx: NetworkContext,
  req: Pick<SendRequest, 'parts' | 'mentions'>,
  scope: string[],
): { mentions: string[]; unresolved: Unresolved[] } {
  const texts: string[] = [];
  let marked = false;
  for (const x of req.parts) {
    if (x.kind !== 'text' || typeof x.text !== 'string') continue;
    texts.push(x.text);
    // Every text form of a mention (`@agent`, `@alias:agent`, `<@svc://...>`) has an `@`.
    if (!marked && x.text.includes('@')) marked = true;
  }
  const explicit = req.mentions ?? [];
  if (!marked && explicit.length === 0) return { mentions: [], unresolved: [] };
  const aliases = new Map<string, string>(
    ctx.config.pairings.flatMap((pr) => (pr.remote_network_id ? [[pr.id, pr.remote_network_id] as [string, string]] : [])),
  );
  return resolveMentionsExplained(texts, explicit, { localNetwork: ctx.config.network.id, members: scope, aliases }, UNMENTIONED_MAX);
}

/** Accepts one message. The caller has already authorized `message.send`. */
export async function sendMessage(ctx: NetworkContext, p: Principal, req: SendRequest): Promise<SendResponse> {
  if (req.id !== undefined && !MESSAGE_ID_PATTERN.test(req.id)) {
    throw badRequest('body.id: must be 1-128 characters: letters, digits, . _ : - starting with a letter or digit');
  }
  if (req.target.kind === 'dm') requireDirectMessages(ctx);
  try {
    return await ctx.store.decide(
      (reads) => decideSend(ctx, p, req, reads),
      (ops) => {
        // Features' checks (the loop guard) count what they see: they run on what is written, once
        // per write, not on every decision the store makes.
        for (const op of ops)
          if (op.op === 'message.insert') for (const h of ctx.extensions.send) h.check?.(op.record.conv, op.record.message);
        return commit(ctx, ops);
      },
    );
  } catch (err) {
    if (err instanceof StoreError && err.code === 'thread_room') throw conflict(err.message);
    throw err;
  }
}

/** What a send comes to on these reads: its message insert, or the answer to a retry of a stored id. */
async function decideSend(ctx: NetworkContext, p: Principal, req: SendRequest, reads: DecisionReads): Promise<Decision<SendResponse>> {
  const net = ctx.config.network.id;
  // The reads the checks below need are started together (on a database server each is a round
  // trip); their results are still looked at in the order of the checks.
  const priorRead = req.id !== undefined ? settled(reads.message(req.id)) : undefined;
  const roomId = req.target.kind === 'dm' ? undefined : req.target.room_id;
  const roomRead = typeof roomId === 'string' ? settled(reads.room(roomId)) : undefined;
  // The sender check comes first so a retry is acknowledged only to a caller that may send as `from`.
  const sender = await resolveSender(ctx, p, req, reads);
  if (priorRead) {
    // A retry answers without re-deciding anything; the store re-checks inside the write too.
    const prior = await priorRead;
    if (prior) return { answer: await retried(ctx, req, sender, prior.message, prior.event_id, true) };
  }
  const placed = await place(ctx, req, sender, reads, roomRead);
  if (placed.room) {
    if (!sender.local) ctx.extensions.checkRemoteSender!(p, req, { room: placed.room });
    const d = decideRoomWrite(p, placed.room, { memberId: sender.memberId, registeredLocalAgent: sender.local && sender.registered });
    if (!d.allow) throw new AppError('forbidden', d.reason);
  } else if (!sender.local) {
    ctx.extensions.checkRemoteSender!(p, req, {});
  }

  const at = now();
  const resolved = mentionsOf(ctx, req, placed.mentionScope);
  // Told to the sender, not stored: the members a candidate was looked for among, as stored.
  const unmentioned =
    resolved.unresolved.length > 0
      ? await explainUnmentioned(
          net,
          placed.target,
          placed.room?.members ?? placed.dm?.participant_ids.map((m) => (m.startsWith(`${net}:`) ? m.slice(net.length + 1) : m)) ?? [],
          resolved.unresolved,
          reads,
        )
      : [];
  const id = req.id ?? newId('msg');
  const conv = convKeyOf(placed.target);
  // What features add to the batch (file references) and fill into the parts, decided with the send.
  const added = await batchOf(ctx, {
    id,
    conv,
    target: placed.target,
    parts: req.parts.map(wirePart),
    principal: p,
    ...(req.origin ? { origin: { network_id: req.origin.network_id } } : {}),
  });
  const message: Message = {
    id,
    network_id: net,
    ...(req.origin ? { origin: { network_id: req.origin.network_id, message_id: req.origin.message_id } } : {}),
    target: placed.target,
    from: sender.actor,
    parts: [...added.parts],
    mentions: resolved.mentions,
    created_at: at,
  };

  const created = newEvent(ctx, 'message.created', { message });
  const op: MessageInsertOp = {
    op: 'message.insert',
    record: { message, conv, event_id: created.id },
    ...(req.id === undefined ? { minted: true } : {}),
    event: created,
    artifacts: artifactsOf(net, message),
    ...(placed.thread
      ? { thread: { ...placed.thread, created: (t) => newEvent(ctx, 'thread.created', { thread: threadView(net, t) }) } }
      : {}),
    ...(placed.dm ? { dm: { ...placed.dm, created: (d) => newEvent(ctx, 'dm.created', { dm: dmView(net, d) }) } } : {}),
  };
  return {
    write: [op, ...added.ops],
    reply: (result) => {
      const outcome = result.outcomes[0]!;
      if (outcome.op !== 'message.insert') throw new Error('unexpected outcome');
      // A concurrent send of the same id won the race: answer as a retry.
      if (outcome.status === 'exists') return retried(ctx, req, sender, outcome.record.message, outcome.record.event_id, false);
      for (const h of ctx.extensions.send) h.stored?.(conv, message);
      return {
        message_id: message.id,
        event_id: created.id,
        accepted: true,
        thread_created: outcome.thread_created,
        dm_created: outcome.dm_created,
        ...(unmentioned.length > 0 ? { unmentioned } : {}),
      };
    },
  };
}

/** A read started ahead of the check that uses it: a failure surfaces when awaited, not as an unhandled rejection. */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** The answer to a send whose id is stored: the stored message, if this sender sent it. */
async function retried(
  ctx: NetworkContext,
  req: SendRequest,
  sender: Sender,
  stored: Message,
  eventId: string,
  sync: boolean,
): Promise<SendResponse> {
  if (stored.from.id !== req.from.id || stored.from.network_id !== sender.actor.network_id) {
    throw conflict(`message id ${req.id} is already used by another sender`);
  }
  if (sync) await ctx.store.sync();
  return { message_id: stored.id, event_id: eventId, accepted: true, thread_created: false, dm_created: false };
}
