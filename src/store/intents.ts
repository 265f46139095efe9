// How the in-process backends (memory, sqlite) apply intents: a batch is resolved against the
// current state, read synchronously, into effects (whole records to put, events to append) and
// outcomes. Nothing else runs between the reads and the application of the effects, so the
// batch is atomic. The memory backend applies the effects to maps; the sqlite backend journals and
// applies them (its journal records are effects, so a replay never re-decides anything).
// A networked backend does the same in SQL inside one transaction.

import type { Artifact, ServiceEvent } from '../protocol/types.js';
import {
  StoreError,
  type AppliedHookRecord,
  type AgentReadState,
  type AgentReadStateOp,
  type AgentRecord,
  type DmRecord,
  type MembersEvent,
  type MessageInsertOp,
  type MessageRecord,
  type OpOutcome,
  type PairingState,
  type ReactionChangeOp,
  type ReactionRecord,
  type ReceiptMark,
  type PersonReadMarker,
  type ReceiptRecord,
  type RoomRecord,
  type RoomSpec,
  type ThreadRecord,
  type WebhookDelivery,
  type WriteOp,
} from './types.js';
import { mergeRange, receiptKey } from './receipts.js';

/** What a batch does to stored state, in order. */
export type Effect =
  | { op: 'room.put'; room: RoomRecord }
  | { op: 'agent.put'; agent: AgentRecord }
  | { op: 'agent.delete'; id: string }
  | { op: 'message.insert'; record: MessageRecord }
  | { op: 'thread.put'; thread: ThreadRecord }
  | { op: 'dm.put'; dm: DmRecord }
  | { op: 'artifact.insert'; artifact: Artifact }
  | { op: 'event.append'; event: ServiceEvent }
  | { op: 'pairing.put'; pairing_id: string; state: PairingState }
  | { op: 'pairing.delete'; pairing_id: string }
  | { op: 'read_state.put'; agent_id: string; state: AgentReadState }
  | { op: 'read_state.delete'; agent_id: string }
  | { op: 'reaction.put'; reaction: ReactionRecord }
  | { op: 'reaction.delete'; message_id: string; emoji: string; by: string }
  | { op: 'receipt.put'; record: ReceiptRecord }
  // #29 part 4: applied as "advance if newer" by each backend (person-read.ts).
  | { op: 'person_read.advance'; person: string; marker: PersonReadMarker }
  // Outbound webhooks (#28 part 3): `add` keeps a delivery already stored, `put` replaces it.
  | { op: 'webhook.cursor.put'; webhook_id: string; seq: number }
  | { op: 'webhook.delivery.add'; delivery: WebhookDelivery }
  | { op: 'webhook.delivery.put'; delivery: WebhookDelivery }
  // Hooks declared by `svc apply` (#28).
  | { op: 'hook.put'; hook: AppliedHookRecord }
  | { op: 'hook.delete'; kind: AppliedHookRecord['kind']; id: string };

/** Synchronous reads of the current state (records are the backend's own: not mutated here). */
export interface StateView {
  /** A room, removed or not. */
  room(id: string): RoomRecord | undefined;
  /** Active rooms in creation order. */
  rooms(): RoomRecord[];
  agent(id: string): AgentRecord | undefined;
  hasMessage(id: string): boolean;
  message(id: string): MessageRecord | undefined;
  thread(id: string): ThreadRecord | undefined;
  dm(id: string): DmRecord | undefined;
  pairing(id: string): PairingState | undefined;
  readState(agentId: string): AgentReadState | undefined;
  /** The reactions to one message, oldest first. */
  reactions(messageId: string): ReactionRecord[];
  /** A reader's receipt record of one kind in one conversation. */
  receipt(reader: string, conv: string, kind: ReceiptRecord['kind']): ReceiptRecord | undefined;
}

export interface Resolved {
  effects: Effect[];
  outcomes: OpOutcome[];
}

/**
 * Resolves a batch. Later ops see the effects of earlier ones. Throws StoreError before returning
 * any effect, so a refused batch changes nothing.
 */
export function resolveIntents(base: StateView, ops: readonly WriteOp[]): Resolved {
  const view = new Overlay(base);
  const effects: Effect[] = [];
  const outcomes: OpOutcome[] = [];
  const put = (e: Effect) => {
    effects.push(e);
    view.note(e);
  };
  for (const op of ops) {
    switch (op.op) {
      case 'room.create': {
        const existing = view.room(op.room.id);
        if (existing && !existing.removed_at) throw new StoreError('room_exists', `room ${op.room.id} already exists`);
        const room = newRoom(op.room, op.at, existing);
        put({ op: 'room.put', room });
        put({ op: 'event.append', event: op.event(room) });
        outcomes.push({ op: 'room.create', room, revived: existing !== undefined });
        break;
      }
      case 'room.declare': {
        const existing = view.room(op.room.id);
        const d = op.room;
        if (existing?.removed_at && op.keep_removed) {
          outcomes.push({ op: 'room.declare', room: existing, action: 'unchanged' });
          break;
        }
        if (!existing || existing.removed_at) {
          const spec: RoomSpec = {
            id: d.id,
            ...(d.name !== undefined ? { name: d.name } : {}),
            members: d.members ?? [],
            visibility: d.visibility ?? 'public',
            write_policy: d.write_policy ?? 'members',
            ...(d.federation_pairings !== undefined ? { federation_pairings: d.federation_pairings } : {}),
          };
          const room = newRoom(spec, op.at, existing);
          put({ op: 'room.put', room });
          put({ op: 'event.append', event: op.events.created(room) });
          outcomes.push({ op: 'room.declare', room, action: 'created' });
          break;
        }
        const members = !d.members
          ? existing.members
          : op.members_mode === 'set'
            ? [...d.members]
            : [...existing.members, ...d.members.filter((m) => !existing.members.includes(m))];
        const next: RoomRecord = {
          ...existing,
          name: d.name ?? existing.name,
          members,
          visibility: d.visibility ?? existing.visibility,
          write_policy: d.write_policy ?? existing.write_policy,
          federation_pairings: d.federation_pairings ? [...d.federation_pairings] : existing.federation_pairings,
        };
        const membersChanged = !sameList(next.members, existing.members);
        const changed =
          next.name !== existing.name ||
          membersChanged ||
          next.visibility !== existing.visibility ||
          next.write_policy !== existing.write_policy ||
          !sameList(next.federation_pairings, existing.federation_pairings);
        if (!changed) {
          outcomes.push({ op: 'room.declare', room: existing, action: 'unchanged' });
          break;
        }
        next.updated_at = op.at;
        put({ op: 'room.put', room: next });
        if (membersChanged) {
          const added = next.members.filter((m) => !existing.members.includes(m));
          const removed = existing.members.filter((m) => !next.members.includes(m));
          put({ op: 'event.append', event: op.events.members(next, added, removed) });
        }
        outcomes.push({ op: 'room.declare', room: next, action: 'updated' });
        break;
      }
      case 'room.remove': {
        const room = view.room(op.id);
        if (!room || room.removed_at) throw new StoreError('not_found', `room ${op.id}`);
        put({ op: 'room.put', room: { ...room, removed_at: op.at, updated_at: op.at } });
        put({ op: 'event.append', event: op.event(room) });
        outcomes.push({ op: 'room.remove', room });
        break;
      }
      case 'room.members.change': {
        const room = view.room(op.room_id);
        if (!room || room.removed_at) throw new StoreError('not_found', `room ${op.room_id}`);
        const r = changeMembers(room, op.add, op.remove, op.at, op.event);
        if (r.effects.length > 0) for (const e of r.effects) put(e);
        outcomes.push({ op: 'room.members.change', room: r.room, added: r.added, removed: r.removed });
        break;
      }
      case 'agent.claim': {
        const existing = view.agent(op.agent.id);
        if (existing) {
          if (existing.credential_key !== op.agent.credential_key) {
            throw new StoreError('agent_taken', `agent id ${op.agent.id} is already registered to another credential`);
          }
          outcomes.push({ op: 'agent.claim', agent: existing, created: false });
          break;
        }
        put({ op: 'agent.put', agent: { ...op.agent } });
        outcomes.push({ op: 'agent.claim', agent: op.agent, created: true });
        break;
      }
      case 'agent.remove': {
        const agent = view.agent(op.id);
        const memberOf = view.rooms().filter((r) => r.members.includes(op.id));
        if (!agent && memberOf.length === 0) throw new StoreError('not_found', `agent ${op.id}`);
        if (agent) put({ op: 'agent.delete', id: op.id });
        // A later agent of the same id starts its own MCP cursor and markers.
        if (view.readState(op.id)) put({ op: 'read_state.delete', agent_id: op.id });
        for (const room of memberOf) for (const e of changeMembers(room, [], [op.id], op.at, op.events.members).effects) put(e);
        put({ op: 'event.append', event: op.events.removed(agent) });
        outcomes.push({ op: 'agent.remove', agent });
        break;
      }
      case 'message.insert':
        outcomes.push(insertMessage(view, op, put));
        break;
      case 'event.append':
        put({ op: 'event.append', event: op.event });
        outcomes.push({ op: 'event.append' });
        break;
      case 'pairing.state': {
        if (op.delete) put({ op: 'pairing.delete', pairing_id: op.pairing_id });
        else {
          const prev = view.pairing(op.pairing_id) ?? { seq: 0, answered: false };
          put({ op: 'pairing.put', pairing_id: op.pairing_id, state: { ...prev, ...op.set } });
        }
        outcomes.push({ op: 'pairing.state' });
        break;
      }
      case 'agent.read_state': {
        const state = nextReadState(view.readState(op.agent_id), op);
        put({ op: 'read_state.put', agent_id: op.agent_id, state });
        outcomes.push({ op: 'agent.read_state', state });
        break;
      }
      case 'reaction.change':
        outcomes.push(changeReaction(view, op, put));
        break;
      case 'receipt.mark': {
        const changed: ReceiptMark[] = [];
        for (const m of op.marks) {
          const cur = view.receipt(m.reader, m.conv, m.kind);
          const ranges = mergeRange(cur?.ranges ?? [], m.lo, m.hi, m.at);
          if (!ranges) continue;
          put({ op: 'receipt.put', record: { reader: m.reader, conv: m.conv, kind: m.kind, ranges } });
          changed.push(m);
        }
        outcomes.push({ op: 'receipt.mark', changed });
        break;
      }
      case 'person.read':
        for (const marker of op.markers) put({ op: 'person_read.advance', person: op.person, marker: { ...marker } });
        outcomes.push({ op: 'person.read' });
        break;
      case 'webhook.enqueue':
        put({ op: 'webhook.cursor.put', webhook_id: op.webhook_id, seq: op.seq });
        for (const delivery of op.deliveries) put({ op: 'webhook.delivery.add', delivery });
        outcomes.push({ op: 'webhook.enqueue' });
        break;
      case 'webhook.delivery':
        put({ op: 'webhook.delivery.put', delivery: op.delivery });
        outcomes.push({ op: 'webhook.delivery' });
        break;
      case 'hooks.apply':
        // A removed hook that is also put is replaced: one effect per row (Postgres runs a batch as one statement).
        for (const r of op.remove ?? [])
          if (!op.put.some((h) => h.kind === r.kind && h.id === r.id)) put({ op: 'hook.delete', kind: r.kind, id: r.id });
        for (const hook of op.put) put({ op: 'hook.put', hook });
        outcomes.push({ op: 'hooks.apply' });
        break;
      default:
        throw new StoreError('corrupt', `unknown write op ${JSON.stringify((op as { op?: unknown }).op)}`);
    }
  }
  return { effects, outcomes };
}

/** An agent's read state after `op`; refuses a cursor that moved since the caller read it. */
export function nextReadState(prev: AgentReadState | undefined, op: AgentReadStateOp): AgentReadState {
  const cur = prev ?? op.init;
  if (op.expect_cursor !== undefined && cur.cursor !== op.expect_cursor)
    throw new StoreError('conflict', `the read cursor of agent ${op.agent_id} moved (${cur.cursor}, not ${op.expect_cursor})`);
  const read = { ...cur.read };
  for (const [key, m] of Object.entries(op.read ?? {})) {
    const had = read[key];
    if (!had || (had.at <= m.at && had.id !== m.id)) read[key] = { id: m.id, at: m.at };
  }
  return { cursor: op.cursor ?? cur.cursor, since: cur.since, read };
}

function insertMessage(view: Overlay, op: MessageInsertOp, put: (e: Effect) => void): OpOutcome {
  const id = op.record.message.id;
  if (!op.minted && view.hasMessage(id)) return { op: 'message.insert', status: 'exists', record: view.message(id)! };
  const at = op.record.message.created_at;
  let thread_created = false;
  let dm_created = false;
  if (op.thread) {
    const t = op.thread;
    const existing = view.thread(t.id);
    if (existing && existing.room_id !== t.room_id)
      throw new StoreError('thread_room', `thread ${t.id} belongs to room ${existing.room_id}`);
    if (existing) put({ op: 'thread.put', thread: { ...existing, message_count: existing.message_count + 1, last_message_at: at } });
    else {
      const thread: ThreadRecord = {
        id: t.id,
        room_id: t.room_id,
        ...(t.parent_message_id !== undefined ? { parent_message_id: t.parent_message_id } : {}),
        message_count: 1,
        last_message_at: at,
        created_at: at,
      };
      put({ op: 'thread.put', thread });
      put({ op: 'event.append', event: t.created(thread) });
      thread_created = true;
    }
  }
  if (op.dm) {
    const d = op.dm;
    const existing = view.dm(d.id);
    if (existing) put({ op: 'dm.put', dm: { ...existing, message_count: existing.message_count + 1, last_message_at: at } });
    else {
      const dm: DmRecord = { id: d.id, participant_ids: [...d.participant_ids], message_count: 1, last_message_at: at, created_at: at };
      put({ op: 'dm.put', dm });
      put({ op: 'event.append', event: d.created(dm) });
      dm_created = true;
    }
  }
  put({ op: 'message.insert', record: op.record });
  for (const a of op.artifacts) put({ op: 'artifact.insert', artifact: a });
  put({ op: 'event.append', event: op.event });
  return { op: 'message.insert', status: 'stored', record: op.record, thread_created, dm_created };
}

function changeReaction(view: Overlay, op: ReactionChangeOp, put: (e: Effect) => void): OpOutcome {
  const r = op.reaction;
  if (!view.hasMessage(r.message_id)) throw new StoreError('not_found', `message ${r.message_id}`);
  const all = view.reactions(r.message_id);
  const same = all.filter((x) => x.emoji === r.emoji);
  const mine = same.some((x) => x.by === r.by);
  const unchanged = (status: 'unchanged' | 'limit'): OpOutcome => ({ op: 'reaction.change', status, count: same.length });
  if (op.action === 'add') {
    if (mine) return unchanged('unchanged');
    if (same.length === 0 && new Set(all.map((x) => x.emoji)).size >= op.max_distinct) return unchanged('limit');
    put({ op: 'reaction.put', reaction: { ...r, created_at: op.at } });
    put({ op: 'event.append', event: op.event(same.length + 1) });
    return { op: 'reaction.change', status: 'added', count: same.length + 1 };
  }
  if (!mine) return unchanged('unchanged');
  put({ op: 'reaction.delete', message_id: r.message_id, emoji: r.emoji, by: r.by });
  put({ op: 'event.append', event: op.event(same.length - 1) });
  return { op: 'reaction.change', status: 'removed', count: same.length - 1 };
}

function newRoom(spec: RoomSpec, at: string, removed: RoomRecord | undefined): RoomRecord {
  return {
    id: spec.id,
    name: spec.name ?? removed?.name ?? spec.id,
    members: [...spec.members],
    visibility: spec.visibility,
    write_policy: spec.write_policy,
    federation_pairings: [...(spec.federation_pairings ?? removed?.federation_pairings ?? [])],
    created_at: removed?.created_at ?? at,
    updated_at: at,
  };
}

/** A membership change against the room's current list (see RoomMembersOp). */
function changeMembers(
  room: RoomRecord,
  add: readonly string[],
  remove: readonly string[],
  at: string,
  event: MembersEvent,
): { room: RoomRecord; added: string[]; removed: string[]; effects: Effect[] } {
  const added = [...new Set(add)].filter((m) => !room.members.includes(m));
  const removed = [...new Set(remove)].filter((m) => room.members.includes(m) && !added.includes(m));
  if (added.length === 0 && removed.length === 0) return { room, added, removed, effects: [] };
  const next: RoomRecord = { ...room, members: [...room.members.filter((m) => !removed.includes(m)), ...added], updated_at: at };
  return {
    room: next,
    added,
    removed,
    effects: [
      { op: 'room.put', room: next },
      { op: 'event.append', event: event(next, added, removed) },
    ],
  };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The base state with the batch's earlier effects laid over it. Each map is made on first use:
 * most batches are one message, which needs one of them.
 */
class Overlay implements StateView {
  private rooms_: Map<string, RoomRecord> | undefined;
  private agents: Map<string, AgentRecord | null> | undefined;
  private messages: Map<string, MessageRecord> | undefined;
  private threads: Map<string, ThreadRecord> | undefined;
  private dms: Map<string, DmRecord> | undefined;
  private pairings: Map<string, PairingState | null> | undefined;
  private readStates: Map<string, AgentReadState | null> | undefined;
  private reactions_: Map<string, ReactionRecord[]> | undefined;
  private receipts: Map<string, ReceiptRecord> | undefined;

  constructor(private readonly base: StateView) {}

  note(e: Effect): void {
    switch (e.op) {
      case 'room.put':
        (this.rooms_ ??= new Map()).set(e.room.id, e.room);
        break;
      case 'agent.put':
        (this.agents ??= new Map()).set(e.agent.id, e.agent);
        break;
      case 'agent.delete':
        (this.agents ??= new Map()).set(e.id, null);
        break;
      case 'message.insert':
        (this.messages ??= new Map()).set(e.record.message.id, e.record);
        break;
      case 'thread.put':
        (this.threads ??= new Map()).set(e.thread.id, e.thread);
        break;
      case 'dm.put':
        (this.dms ??= new Map()).set(e.dm.id, e.dm);
        break;
      case 'pairing.put':
        (this.pairings ??= new Map()).set(e.pairing_id, e.state);
        break;
      case 'pairing.delete':
        (this.pairings ??= new Map()).set(e.pairing_id, null);
        break;
      case 'read_state.put':
        (this.readStates ??= new Map()).set(e.agent_id, e.state);
        break;
      case 'read_state.delete':
        (this.readStates ??= new Map()).set(e.agent_id, null);
        break;
      case 'reaction.put': {
        const list = this.reactions(e.reaction.message_id);
        (this.reactions_ ??= new Map()).set(e.reaction.message_id, [...list, e.reaction]);
        break;
      }
      case 'reaction.delete': {
        const list = this.reactions(e.message_id).filter((x) => !(x.emoji === e.emoji && x.by === e.by));
        (this.reactions_ ??= new Map()).set(e.message_id, list);
        break;
      }
      case 'receipt.put':
        (this.receipts ??= new Map()).set(receiptKey(e.record), e.record);
        break;
      default:
        break;
    }
  }

  room(id: string): RoomRecord | undefined {
    return this.rooms_?.get(id) ?? this.base.room(id);
  }

  rooms(): RoomRecord[] {
    const mine = this.rooms_;
    if (!mine || mine.size === 0) return this.base.rooms();
    const out = this.base.rooms().map((r) => mine.get(r.id) ?? r);
    for (const r of mine.values()) if (!out.some((x) => x.id === r.id)) out.push(r);
    return out.filter((r) => !r.removed_at);
  }

  agent(id: string): AgentRecord | undefined {
    const a = this.agents?.get(id);
    return a === null ? undefined : (a ?? this.base.agent(id));
  }

  hasMessage(id: string): boolean {
    return this.messages?.has(id) === true || this.base.hasMessage(id);
  }

  message(id: string): MessageRecord | undefined {
    return this.messages?.get(id) ?? this.base.message(id);
  }

  thread(id: string): ThreadRecord | undefined {
    return this.threads?.get(id) ?? this.base.thread(id);
  }

  dm(id: string): DmRecord | undefined {
    return this.dms?.get(id) ?? this.base.dm(id);
  }

  pairing(id: string): PairingState | undefined {
    const s = this.pairings?.get(id);
    return s === null ? undefined : (s ?? this.base.pairing(id));
  }

  readState(agentId: string): AgentReadState | undefined {
    const s = this.readStates?.get(agentId);
    return s === null ? undefined : (s ?? this.base.readState(agentId));
  }

  reactions(messageId: string): ReactionRecord[] {
    return this.reactions_?.get(messageId) ?? this.base.reactions(messageId);
  }

  receipt(reader: string, conv: string, kind: ReceiptRecord['kind']): ReceiptRecord | undefined {
    return this.receipts?.get(receiptKey({ reader, conv, kind })) ?? this.base.receipt(reader, conv, kind);
  }
}
