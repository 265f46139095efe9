// Which live subscriber may receive an event. An event's audience (its room, DM or agent) is
// resolved once per event; each subscriber then asks the same questions as HTTP reads
// (src/auth/visibility.ts) about that audience. The core's event types are judged here; a
// feature's own types by what the feature declares of them (`Feature.events`).

import { authorize, type PolicySettings } from '../auth/policy.js';
import type { Principal } from '../auth/principal.js';
import type { LiveEvent } from '../feature.js';
import { canSeeAgent, canSeeDm, canSeeRoom, memberIsLocalAgent, viewerOf, type Viewer } from '../auth/visibility.js';
import type { EventType, ServiceEvent, Target } from '../protocol/types.js';
import type { DmRecord, RoomRecord, Store, StoredEvent } from '../store/types.js';

export type ConversationKind = 'room' | 'thread' | 'dm';

/** What an event concerns. */
export interface Audience {
  kind: 'conversation' | 'agent' | 'pairing';
  /** The room of a room or thread event, or of an agent event's target. */
  room?: RoomRecord;
  /** The DM of a DM event, or of an agent event's target. */
  dm?: DmRecord;
  /** For conversation events: which attachment capability covers it. */
  conv?: ConversationKind;
  /** For agent events: the agent it is about. */
  agentId?: string;
  /** Anonymous public readers may receive it when its room is public (public room and thread events). */
  publicKind: boolean;
  /** No attached agent receives it, whatever its conversation (a feature's event declared for observers only). */
  unattached?: boolean;
  /** Local agent ids taking part: room members or DM participants. */
  locals: ReadonlySet<string>;
  /** Active rooms, read for agent events only (a restricted viewer sees agents through rooms). */
  rooms: readonly RoomRecord[];
}

/** A subscriber's standing: the HTTP viewer plus what the live surfaces add. */
export interface LiveViewer {
  viewer: Viewer;
  anonymous: boolean;
  /** May read pairing metadata (the pairings routes' rule). */
  pairings: boolean;
}

export function liveViewerOf(p: Principal, settings: PolicySettings): LiveViewer {
  return { viewer: viewerOf(p), anonymous: p.kind === 'anonymous', pairings: authorize(p, 'pairings.read', settings).allow };
}

/** The local ids of a member list, by the list (a room record read once serves a batch of events). */
const LOCALS = new WeakMap<readonly string[], { net: string; ids: ReadonlySet<string> }>();

/** The local agent ids among `ids`; one Set per list (audiences share it, and never change it). */
function localsOf(net: string, ids: readonly string[]): ReadonlySet<string> {
  const known = LOCALS.get(ids);
  if (known?.net === net) return known.ids;
  const out = new Set<string>();
  const prefix = `${net}:`;
  for (const m of ids) {
    if (!m.includes(':')) out.add(m);
    else if (m.startsWith(prefix)) out.add(m.slice(prefix.length));
  }
  LOCALS.set(ids, { net, ids: out });
  return out;
}

async function roomFor(store: Store, id: string, fallback?: ServiceEvent['room']): Promise<RoomRecord | undefined> {
  const r = await store.getRoom(id);
  if (r || !fallback) return r;
  return { ...fallback, federation_pairings: [], updated_at: fallback.created_at };
}

async function dmFor(store: Store, id: string, participants: readonly string[] = []): Promise<DmRecord> {
  return (await store.getDm(id)) ?? { id, participant_ids: [...participants], message_count: 0, last_message_at: '', created_at: '' };
}

/** Resolves the room or DM of a conversation target. */
async function targetParts(store: Store, net: string, t: Target | undefined): Promise<Pick<Audience, 'room' | 'dm' | 'conv' | 'locals'>> {
  if (!t) return { locals: new Set() };
  if (t.kind === 'dm') {
    const dm = await dmFor(store, t.dm_id, t.participant_ids);
    return { dm, conv: 'dm', locals: localsOf(net, dm.participant_ids) };
  }
  const room = await roomFor(store, t.room_id);
  return { ...(room ? { room } : {}), conv: t.kind, locals: localsOf(net, room?.members ?? []) };
}

/**
 * The store as resolveAudience reads it, for one batch of events: each distinct room, DM or room
 * list is read once and shared. On a networked store every read is a round trip, and a fan-out
 * batch names the same room over and over; a room its feed read with the events is not read again.
 */
export function batchReads(store: Store, events: readonly StoredEvent[] = []): Store {
  const key = (prop: PropertyKey, args: unknown[]) => `${String(prop)} ${JSON.stringify(args)}`;
  const memo = new Map<string, Promise<unknown>>();
  // Later pages were read later: the last copy of a room is the freshest.
  for (const e of events) if (e.room) memo.set(key('getRoom', [e.room.id]), Promise.resolve(e.room));
  const shared = new Set<PropertyKey>(['getRoom', 'getDm', 'listRooms']);
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (!shared.has(prop)) return (v as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => {
        const k = key(prop, args);
        let p = memo.get(k);
        if (!p) memo.set(k, (p = Promise.resolve((v as (...a: unknown[]) => unknown).apply(target, args))));
        return p;
      };
    },
  });
}

/**
 * The audiences of a batch as of each event. A batch's rooms are read once, after all of its
 * events, so an event that comes before a membership change of its room in the same batch would be
 * judged by the members after it. Each change event carries the room after it and who was added
 * and removed, which gives back the members at every point of the batch: an event's audience takes
 * the members its room had when it was stored.
 */
export function asOfEvents(net: string, events: readonly StoredEvent[], audiences: WeakMap<StoredEvent, Audience>): void {
  const changes = (ev: ServiceEvent) => ev.room !== undefined && (ev.type === 'room.members.updated' || ev.type === 'room.created');
  // Members of each changed room before its first change in the batch.
  const members = new Map<string, string[]>();
  for (const { event: ev } of events) {
    if (!changes(ev) || members.has(ev.room!.id)) continue;
    if (ev.type === 'room.created') members.set(ev.room!.id, []);
    else {
      const added = new Set(ev.added ?? []);
      members.set(ev.room!.id, [...ev.room!.members.filter((m) => !added.has(m)), ...(ev.removed ?? [])]);
    }
  }
  if (members.size === 0) return;
  for (const e of events) {
    const ev = e.event;
    if (changes(ev)) members.set(ev.room!.id, ev.room!.members);
    const a = audiences.get(e);
    const now = a?.room && members.get(a.room.id);
    // The member arrays are shared, never copied: localsOf memoizes by array, and the newest events'
    // audiences stay alive with them (recent-events.ts). A copy per event cost, in a batch after a
    // change of a 10,000-member room, 10,000 ids and a Set of them each: 190 MB after the
    // broadcasts of the attach bench.
    if (a?.room && now) audiences.set(e, { ...a, room: { ...a.room, members: now }, locals: localsOf(net, now) });
  }
}

/**
 * The audience of one event, read from the store as it is now; `declared` are the event types the
 * running features add (without them, such an event is judged as one nobody declared).
 */
export async function resolveAudience(store: Store, net: string, e: ServiceEvent, declared: readonly LiveEvent[] = []): Promise<Audience> {
  const base = { rooms: [] as readonly RoomRecord[], locals: new Set<string>() as ReadonlySet<string> };
  switch (e.type) {
    case 'message.created':
    case 'message.edited':
    case 'message.deleted':
    case 'message.redacted':
      return { ...base, kind: 'conversation', publicKind: true, ...(await targetParts(store, net, e.message?.target)) };
    case 'thread.created': {
      const room = e.thread ? await roomFor(store, e.thread.room_id) : undefined;
      return {
        ...base,
        kind: 'conversation',
        publicKind: true,
        conv: 'thread',
        ...(room ? { room } : {}),
        locals: localsOf(net, room?.members ?? []),
      };
    }
    case 'dm.created': {
      const dm = e.dm ? await dmFor(store, e.dm.id, e.dm.participant_ids) : undefined;
      return {
        ...base,
        kind: 'conversation',
        publicKind: false,
        conv: 'dm',
        ...(dm ? { dm } : {}),
        locals: localsOf(net, dm?.participant_ids ?? []),
      };
    }
    case 'room.created':
    case 'room.members.updated':
    case 'room.removed': {
      const id = e.room?.id ?? e.room_id;
      const room = id !== undefined ? await roomFor(store, id, e.room) : undefined;
      // Membership changes and removals are admin events: never for anonymous readers.
      return {
        ...base,
        kind: 'conversation',
        publicKind: e.type === 'room.created',
        conv: 'room',
        ...(room ? { room } : {}),
        locals: localsOf(net, room?.members ?? []),
      };
    }
    case 'agent.removed':
    case 'agent.connected':
    case 'agent.disconnected':
    case 'agent.wake.delivered':
    case 'agent.wake.failed': {
      const agentId = e.agent?.agent_id ?? e.agent_id;
      const t = await targetParts(store, net, e.agent?.target);
      return {
        ...base,
        rooms: await store.listRooms(),
        kind: 'agent',
        publicKind: false,
        ...(agentId !== undefined ? { agentId } : {}),
        ...(t.room ? { room: t.room } : {}),
        ...(t.dm ? { dm: t.dm } : {}),
      };
    }
    case 'pairing.updated':
      return { ...base, kind: 'pairing', publicKind: false };
    default: {
      const d = declared.find((r) => r.type === e.type);
      if (d) {
        const parts = await targetParts(store, net, d.target(e));
        return { ...base, kind: 'conversation', publicKind: d.public, ...(d.attachments ? {} : { unattached: true }), ...parts };
      }
      // Events nobody declared follow their message, if any, and are never public.
      if (e.message) return { ...base, kind: 'conversation', publicKind: false, ...(await targetParts(store, net, e.message.target)) };
      return { ...base, kind: 'pairing', publicKind: false };
    }
  }
}

/** What an event whose audience could not be read concerns: nobody but full viewers. */
export const UNKNOWN_AUDIENCE: Audience = { kind: 'pairing', publicKind: false, locals: new Set(), rooms: [] };

/** Whether an SSE subscriber may receive an event with this audience. */
export function viewerSees(lv: LiveViewer, a: Audience, net: string): boolean {
  if (a.kind === 'pairing') return lv.pairings;
  const v = lv.viewer;
  if (v.all) return true;
  if (!v.agents) {
    // Anonymous public read (and any credential without a topology): public room and thread events only.
    return a.publicKind && a.room !== undefined && !a.dm && canSeeRoom(v, a.room, net);
  }
  if (a.kind === 'agent') {
    if (a.agentId === undefined) return false;
    const visibleRooms = a.rooms.filter((r) => canSeeRoom(v, r, net));
    if (!canSeeAgent(v, a.agentId, visibleRooms, net)) return false;
  }
  if (a.room) return canSeeRoom(v, a.room, net);
  if (a.dm) return canSeeDm(v, a.dm, net);
  return a.kind === 'agent';
}

export interface Capabilities {
  rooms: boolean;
  threads: boolean;
  dms: boolean;
  artifacts: boolean;
}

export const ALL_CAPABILITIES: Capabilities = { rooms: true, threads: true, dms: true, artifacts: true };

const CAPABILITY: Record<ConversationKind, keyof Capabilities> = { room: 'rooms', thread: 'threads', dm: 'dms' };

/**
 * Core event types no attachment ever receives (attachmentWants is false for each, whatever the
 * audience): presence and wake events and pairing changes are about agents, not conversations.
 * The broker does not queue them for attachments at all (QueueOptions.ignores), nor the types
 * features declare for observers only (`attachments: false`: attachmentIgnores). `agent.removed`
 * is not among them: an attachment ends on its own.
 */
export const ATTACHMENT_IGNORES: ReadonlySet<EventType> = new Set<EventType>([
  'agent.connected',
  'agent.disconnected',
  'agent.wake.delivered',
  'agent.wake.failed',
  'pairing.updated',
]);

const IGNORED = new WeakMap<readonly LiveEvent[], ReadonlySet<string>>();

/**
 * The core's ignored types and the declared types attachments do not receive: one Set per list of
 * declarations, since the broker shares a queue filter among the subscribers with the same Set.
 */
export function attachmentIgnores(declared: readonly LiveEvent[]): ReadonlySet<string> {
  let types = IGNORED.get(declared);
  if (!types)
    IGNORED.set(declared, (types = new Set([...ATTACHMENT_IGNORES, ...declared.filter((d) => !d.attachments).map((d) => d.type)])));
  return types;
}

/**
 * Whether an attached agent receives an event: conversation events of rooms it is a member of,
 * their threads and DMs it takes part in, as its capabilities allow. Membership implies the
 * agent's own visibility, so no further viewer check is needed.
 */
export function attachmentWants(a: Audience, e: ServiceEvent, agentId: string, caps: Capabilities, net: string): boolean {
  if (a.kind !== 'conversation' || a.conv === undefined || !caps[CAPABILITY[a.conv]]) return false;
  // Events for observers (SSE, the console): an attached runtime has no use for them. (The broker
  // does not even queue the ignored types for attachments; store catch-up still reads them.)
  if (a.unattached || ATTACHMENT_IGNORES.has(e.type)) return false;
  if (a.locals.has(agentId)) return true;
  // An agent taken out of a room still hears about it once.
  return e.type === 'room.members.updated' && (e.removed ?? []).some((m) => memberIsLocalAgent(m, agentId, net));
}
