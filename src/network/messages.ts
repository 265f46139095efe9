// POST /v1/messages: who may send, where it lands (room, lazily created thread or DM), mentions,
// artifacts and events, idempotent by message id.

import { createHash } from 'node:crypto';
import { AppError, badRequest, conflict, forbidden, notFound } from '../errors.js';
import { mayAssertAgent, type Principal } from '../auth/principal.js';
import { decideRoomWrite } from '../auth/write-policy.js';
import { fqid, isId, newId, MESSAGE_ID_PATTERN } from '../protocol/ids.js';
import { resolveMentions } from '../protocol/mentions.js';
import type { Actor, Artifact, Message, Part, SendRequest, SendResponse, Target } from '../protocol/types.js';
import { convKeyOf, type DmRecord, type RoomRecord, type ThreadRecord, type WriteOp } from '../store/types.js';
import { commit, newEvent, now, type NetworkContext } from './context.js';
import { requireDirectMessages } from './access.js';
import { normalizeMember, scopedMembers } from './members.js';
import { dmView, threadView } from './views.js';

/** The DM id of a participant set: one set is one DM, on every network that computes it. */
export function dmIdFor(participants: readonly string[]): string {
  return `dm_${createHash('sha256').update([...participants].sort().join('\n')).digest('hex').slice(0, 20)}`;
}

interface Sender {
  actor: Actor;
  /** `net:id` */
  scopedId: string;
  /** Room member form: bare when local. */
  memberId: string;
  local: boolean;
  registered: boolean;
}

/** Checks that the caller may speak as `from`; returns the full actor. */
function resolveSender(ctx: NetworkContext, p: Principal, req: SendRequest): Sender {
  const net = ctx.config.network.id;
  const from = req.from;
  const home = from.network_id ?? net;
  if (!isId(from.id)) throw badRequest('body.from.id: must be an id: letters, digits, . _ - (max 64), starting with a letter or digit');
  if (!isId(home)) throw badRequest('body.from.network_id: must be a network id');
  const actor: Actor = { type: from.type, id: from.id, ...(from.name ? { name: from.name } : {}), network_id: home, fqid: fqid(home, 'agents', from.id) };
  const human = from.type !== 'agent';
  if (human && !ctx.config.server.human_ingress) throw forbidden('human messages are disabled on this network (server.human_ingress: false)');
  if (home !== net) {
    if (!ctx.hooks.checkRemoteSender) throw forbidden(`sender network ${home} is not this network (${net}); only paired networks relay remote senders`);
    return { actor, scopedId: `${home}:${from.id}`, memberId: `${home}:${from.id}`, local: false, registered: false };
  }
  if (req.origin && p.kind !== 'trusted') throw forbidden('origin is only accepted on messages relayed from a paired network');
  if (p.kind === 'static' && !p.scopes.has('write')) throw forbidden('pair credentials relay remote-origin messages only; this sender is local');
  if (from.type === 'agent') {
    if (!mayAssertAgent(p, from.id)) throw forbidden(`this credential may not send as agent ${from.id}`);
    const agent = ctx.store.getAgent(from.id);
    if (agent && p.kind !== 'trusted' && agent.credential_key !== (p.kind === 'anonymous' ? '' : p.credentialKey)) {
      throw forbidden(`agent ${from.id} is registered to another credential; send with its own token`);
    }
    return { actor, scopedId: `${net}:${from.id}`, memberId: from.id, local: true, registered: agent !== undefined };
  }
  // Every non-agent actor is human ingress.
  if (p.kind === 'agent') throw forbidden('an agent token sends only as its own agent');
  if (p.kind === 'static' && p.agents) throw forbidden('a token with an agents allowlist cannot send human messages');
  // A person must not borrow a registered agent's identity (DM participation, mentions, wakes).
  if (ctx.store.getAgent(from.id)) throw forbidden(`${from.id} is a registered agent id; a person sends under another id`);
  actor.fqid = `svc://${net}/humans/${from.id}`;
  // Members are matched by id whatever the actor type: since a person cannot take a registered
  // agent's id (above), a member id that is not a registered agent names that person.
  return { actor, scopedId: `${net}:${from.id}`, memberId: from.id, local: true, registered: false };
}

interface Placement {
  target: Target;
  room?: RoomRecord;
  thread?: { record: ThreadRecord; created: boolean };
  dm?: { record: DmRecord; created: boolean };
  /** Scoped ids that mentions resolve against. */
  mentionScope: string[];
}

function placeInRoom(ctx: NetworkContext, roomId: string): RoomRecord {
  const room = ctx.store.getRoom(roomId);
  if (!room || room.removed_at) throw notFound(`room ${roomId}`);
  return room;
}

function place(ctx: NetworkContext, req: SendRequest, sender: Sender, at: string): Placement {
  const net = ctx.config.network.id;
  const t = req.target;
  if (t.kind === 'room') {
    const room = placeInRoom(ctx, t.room_id);
    return { target: { kind: 'room', room_id: room.id }, room, mentionScope: scopedMembers(net, room.members) };
  }
  if (t.kind === 'thread') {
    const room = placeInRoom(ctx, t.room_id);
    if (!isId(t.thread_id)) throw badRequest('body.target.thread_id: must be an id: letters, digits, . _ - (max 64)');
    const existing = ctx.store.getThread(t.thread_id);
    if (existing && existing.room_id !== room.id) throw conflict(`thread ${t.thread_id} belongs to room ${existing.room_id}`);
    let thread: ThreadRecord;
    if (existing) {
      thread = { ...existing, message_count: existing.message_count + 1, last_message_at: at };
    } else {
      const parent = t.parent_message_id;
      if (parent !== undefined) {
        const pm = ctx.store.getMessage(parent);
        if (!pm || pm.conv !== `room:${room.id}`) throw notFound(`parent message ${parent} in room ${room.id}`);
      }
      thread = { id: t.thread_id, room_id: room.id, ...(parent ? { parent_message_id: parent } : {}), message_count: 1, last_message_at: at, created_at: at };
    }
    const target: Target = { kind: 'thread', room_id: room.id, thread_id: thread.id, ...(thread.parent_message_id ? { parent_message_id: thread.parent_message_id } : {}) };
    return { target, room, thread: { record: thread, created: !existing }, mentionScope: scopedMembers(net, room.members) };
  }
  // DM
  requireDirectMessages(ctx);
  let participants: string[] | undefined;
  if (t.participant_ids !== undefined) {
    const set = new Set<string>([sender.scopedId]);
    t.participant_ids.forEach((raw, i) => {
      const m = normalizeMember(net, raw);
      if (m === undefined) throw badRequest(`body.target.participant_ids[${i}]: must be <network_id>:<agent_id>, an agent id or an agent FQID`);
      set.add(m.includes(':') ? m : `${net}:${m}`);
    });
    participants = [...set].sort();
    if (participants.length < 2) throw badRequest('body.target.participant_ids: a DM needs at least one participant besides the sender');
  }
  let existing: DmRecord | undefined;
  if (participants) {
    const derived = dmIdFor(participants);
    if (t.dm_id !== undefined && t.dm_id !== derived) {
      const named = ctx.store.getDm(t.dm_id);
      if (named) throw conflict(`dm ${t.dm_id} has other participants than body.target.participant_ids`);
      throw badRequest('body.target.dm_id: does not match participant_ids (one participant set is one DM)');
    }
    existing = ctx.store.getDm(derived);
    participants = existing?.participant_ids ?? participants;
    if (!existing) {
      const record: DmRecord = { id: derived, participant_ids: participants, message_count: 1, last_message_at: at, created_at: at };
      return { target: { kind: 'dm', dm_id: derived, participant_ids: participants }, dm: { record, created: true }, mentionScope: participants };
    }
  } else {
    if (t.dm_id === undefined) throw badRequest('body.target: a DM target needs dm_id or participant_ids');
    existing = ctx.store.getDm(t.dm_id);
    if (!existing) throw notFound(`dm ${t.dm_id}`);
  }
  if (!existing.participant_ids.includes(sender.scopedId)) throw forbidden(`${sender.scopedId} is not a participant of dm ${existing.id}`);
  const record = { ...existing, message_count: existing.message_count + 1, last_message_at: at };
  return { target: { kind: 'dm', dm_id: existing.id, participant_ids: existing.participant_ids }, dm: { record, created: false }, mentionScope: existing.participant_ids };
}

const PART_FIELDS = ['kind', 'text', 'url', 'media_type', 'filename', 'data'] as const;

/** A part with only its wire fields: unknown request fields are ignored, not stored or relayed. */
function wirePart(part: Part): Part {
  const out: Partial<Record<(typeof PART_FIELDS)[number], unknown>> = {};
  for (const k of PART_FIELDS) if (part[k] !== undefined) out[k] = part[k];
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
      ...(part.media_type ? { media_type: part.media_type } : {}),
      ...(part.filename ? { filename: part.filename } : {}),
      ...(part.url ? { url: part.url } : {}),
      created_at: m.created_at,
    });
  });
  return out;
}

/** The message's resolved mentions: from its text parts and the explicit field. */
function mentionsOf(ctx: NetworkContext, req: SendRequest, scope: string[]): string[] {
  const texts: string[] = [];
  let marked = false;
  for (const x of req.parts) {
    if (x.kind !== 'text' || typeof x.text !== 'string') continue;
    texts.push(x.text);
    // Every text form of a mention (`@agent`, `@alias:agent`, `<@svc://...>`) has an `@`.
    if (!marked && x.text.includes('@')) marked = true;
  }
  const explicit = req.mentions ?? [];
  if (!marked && explicit.length === 0) return [];
  const aliases = new Map<string, string>(ctx.config.pairings.flatMap((pr) => (pr.remote_network_id ? [[pr.id, pr.remote_network_id] as [string, string]] : [])));
  return resolveMentions(texts, explicit, { localNetwork: ctx.config.network.id, members: scope, aliases });
}

/** Accepts one message. The caller has already authorized `message.send`. */
export async function sendMessage(ctx: NetworkContext, p: Principal, req: SendRequest): Promise<SendResponse> {
  const net = ctx.config.network.id;
  if (req.id !== undefined && !MESSAGE_ID_PATTERN.test(req.id)) {
    throw badRequest('body.id: must be 1-128 characters: letters, digits, . _ : - starting with a letter or digit');
  }
  if (req.target.kind === 'dm') requireDirectMessages(ctx);
  // The sender check comes first so a retry is acknowledged only to a caller that may send as `from`.
  const sender = resolveSender(ctx, p, req);
  if (req.id !== undefined) {
    const prior = ctx.store.getMessage(req.id);
    if (prior) {
      if (prior.message.from.id !== req.from.id || prior.message.from.network_id !== sender.actor.network_id) {
        throw conflict(`message id ${req.id} is already used by another sender`);
      }
      await ctx.store.sync();
      return { message_id: prior.message.id, event_id: prior.event_id, accepted: true, thread_created: false, dm_created: false };
    }
  }
  const at = now();
  const placed = place(ctx, req, sender, at);
  if (placed.room) {
    if (!sender.local) ctx.hooks.checkRemoteSender!(p, req, { room_id: placed.room.id });
    const d = decideRoomWrite(p, placed.room, { memberId: sender.memberId, registeredLocalAgent: sender.local && sender.registered });
    if (!d.allow) throw new AppError('forbidden', d.reason);
  } else if (!sender.local) {
    ctx.hooks.checkRemoteSender!(p, req, {});
  }

  const message: Message = {
    id: req.id ?? newId('msg'),
    network_id: net,
    ...(req.origin ? { origin: { network_id: req.origin.network_id, message_id: req.origin.message_id } } : {}),
    target: placed.target,
    from: sender.actor,
    parts: req.parts.map(wirePart),
    mentions: mentionsOf(ctx, req, placed.mentionScope),
    created_at: at,
  };
  const conv = convKeyOf(placed.target);
  ctx.hooks.checkLoop?.(conv, message);

  const ops: WriteOp[] = [];
  if (placed.thread) {
    ops.push({ op: 'thread.put', thread: placed.thread.record });
    if (placed.thread.created) ops.push({ op: 'event.append', event: newEvent(ctx, 'thread.created', { thread: threadView(net, placed.thread.record) }) });
  }
  if (placed.dm) {
    ops.push({ op: 'dm.put', dm: placed.dm.record });
    if (placed.dm.created) ops.push({ op: 'event.append', event: newEvent(ctx, 'dm.created', { dm: dmView(net, placed.dm.record) }) });
  }
  const created = newEvent(ctx, 'message.created', { message });
  ops.push({ op: 'message.insert', record: { message, conv, event_id: created.id } });
  for (const a of artifactsOf(net, message)) ops.push({ op: 'artifact.insert', artifact: a });
  ops.push({ op: 'event.append', event: created });
  await commit(ctx, ops);
  ctx.hooks.recordLoop?.(conv, message);
  ctx.hooks.afterMessage?.(message);
  return {
    message_id: message.id,
    event_id: created.id,
    accepted: true,
    thread_created: placed.thread?.created ?? false,
    dm_created: placed.dm?.created ?? false,
  };
}
