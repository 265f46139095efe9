// How the in-process backends (memory, sqlite) apply intents: a batch is resolved against the
// current state, read synchronously, into effects (whole records to put, events to append) and
// outcomes. Nothing else runs between the reads and the application of the effects, so the
// batch is atomic. The memory backend applies the effects to maps; the sqlite backend journals and
// applies them (its journal records are effects, so a replay never re-decides anything).
// A networked backend does the same in SQL inside one transaction. Room intents resolve in
// room-intents.ts; the state they see is overlay.ts; effects.ts names what they produce.

import {
  StoreError,
  type AgentReadState,
  type AgentReadStateOp,
  type DmRecord,
  type MessageDeleteOp,
  type MessageRedactOp,
  type MessageEditOp,
  type MessagePurgeOp,
  type MessageInsertOp,
  type MessageRecord,
  type OpOutcome,
  type ThreadRecord,
  type WriteOp,
} from './types.js';
import type { Effect, StateView } from './effects.js';
import { Overlay } from './overlay.js';
import type { Message } from '../protocol/types.js';
import { partFor, type AnyPart, type Overlaid, type Tagged } from './part.js';
import { changeMembers, changeRoomMembers, createRoom, declareRoom, removeRoom } from './room-intents.js';

export type { Effect, StateView } from './effects.js';

export interface Resolved {
  effects: Effect[];
  outcomes: OpOutcome[];
}

/** The parts a store was opened with (part.ts), and the state each decides on. */
export interface PartStates {
  readonly parts: readonly AnyPart[];
  state(part: AnyPart): unknown;
}

/**
 * Resolves a batch. Later ops see the effects of earlier ones. Throws StoreError before returning
 * any effect, so a refused batch changes nothing.
 */
export function resolveIntents(base: StateView, ops: readonly WriteOp[], parts: PartStates): Resolved {
  const view = new Overlay(base);
  const effects: Effect[] = [];
  const outcomes: OpOutcome[] = [];
  const put = (e: Effect) => {
    effects.push(e);
    view.note(e);
  };
  // A part sees a tombstone as no message: nothing is added to a deleted message.
  const partView = { hasMessage: (id: string) => view.hasMessage(id) && view.message(id)?.message.deleted_at === undefined };
  // Each part's state with the batch's earlier effects laid over it, made on the part's first op.
  let overlays: Map<AnyPart, Overlaid<unknown, Tagged>> | undefined;
  const decidePart = (part: AnyPart, op: WriteOp): OpOutcome => {
    overlays ??= new Map();
    const mine = overlays.get(part) ?? part.overlay(parts.state(part));
    overlays.set(part, mine);
    return part.decide(partView, mine, op, (e: Effect) => {
      effects.push(e);
      if (e.op === 'event.append') view.note(e);
      else mine.note(e);
    });
  };
  for (const op of ops) {
    switch (op.op) {
      case 'room.create':
        outcomes.push(createRoom(view, op, put));
        break;
      case 'room.declare':
        outcomes.push(declareRoom(view, op, put));
        break;
      case 'room.remove':
        outcomes.push(removeRoom(view, op, put));
        break;
      case 'room.members.change':
        outcomes.push(changeRoomMembers(view, op, put));
        break;
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
      case 'message.edit':
        outcomes.push(editMessage(view, op, put));
        break;
      case 'message.delete':
        outcomes.push(deleteMessage(view, op, put));
        break;
      case 'message.redact':
        outcomes.push(redactMessage(view, op, put));
        break;
      case 'message.purge':
        outcomes.push(purgeMessages(view, op, put));
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
      default: {
        const part = partFor(parts.parts, op);
        if (!part)
          throw new StoreError(
            'corrupt',
            `unknown write op ${JSON.stringify((op as { op?: unknown }).op)} (no part of this store decides it)`,
          );
        outcomes.push(decidePart(part, op));
      }
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

/**
 * The later of two ISO times: a conversation's last message time never goes back when writes of
 * several instances (Postgres) commit in another order than their messages were made.
 */
const later = (a: string, b: string): string => (a > b ? a : b);

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
    if (existing)
      put({
        op: 'thread.put',
        thread: { ...existing, message_count: existing.message_count + 1, last_message_at: later(existing.last_message_at, at) },
      });
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
    if (existing)
      put({
        op: 'dm.put',
        dm: { ...existing, message_count: existing.message_count + 1, last_message_at: later(existing.last_message_at, at) },
        participants_stored: true,
      });
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

/** The stored message an edit or delete names, or `not_found`. */
function storedMessage(view: Overlay, id: string): MessageRecord {
  const rec = view.message(id);
  if (!rec) throw new StoreError('not_found', `message ${id}`);
  return rec;
}

function editMessage(view: Overlay, op: MessageEditOp, put: (e: Effect) => void): OpOutcome {
  const rec = storedMessage(view, op.id);
  const before = rec.message;
  if (before.deleted_at !== undefined) throw new StoreError('conflict', `message ${op.id} was deleted`);
  const version = before.version ?? 1;
  if (op.expect_version !== undefined && op.expect_version !== version)
    throw new StoreError('conflict', `message ${op.id} was edited meanwhile (version ${version}, not ${op.expect_version})`);
  const previous = { version, parts: before.parts, mentions: before.mentions, created_at: before.edited_at ?? before.created_at };
  // Every agent any version mentioned has been woken once: only the others are woken by this edit.
  const earlier = new Set(before.mentions);
  for (const v of view.versions(op.id)) for (const m of v.mentions) earlier.add(m);
  const mentions_added = op.mentions.filter((m) => !earlier.has(m));
  const message = { ...before, parts: op.parts, mentions: op.mentions, edited_at: op.at, version: version + 1 };
  const record = { ...rec, message };
  put({ op: 'message.version', message_id: op.id, version: previous });
  put({ op: 'message.update', record });
  put({ op: 'artifacts.clear', message_id: op.id });
  for (const a of op.artifacts(message)) put({ op: 'artifact.insert', artifact: a });
  put({ op: 'event.append', event: op.event(message, mentions_added) });
  return { op: 'message.edit', record, previous, mentions_added };
}

/** What a delete leaves of a message: its id, place and sender, and when it went. */
function tombstoneOf(m: Message, deleted_at: string): Message {
  const { id, network_id, origin, target, from, created_at } = m;
  return { id, network_id, ...(origin ? { origin } : {}), target, from, parts: [], mentions: [], created_at, deleted_at };
}

/** Leaves `message` (a tombstone) in the place of `rec`, dropping what the message left. */
function bury(view: Overlay, rec: MessageRecord, message: Message, put: (e: Effect) => void): MessageRecord {
  const record = { ...rec, message };
  put({ op: 'message.update', record });
  put({ op: 'message.forget', message_id: message.id });
  // A tombstone keeps its place but is no longer counted (once).
  if (rec.message.deleted_at === undefined) uncount(view, message, put);
  return record;
}

function deleteMessage(view: Overlay, op: MessageDeleteOp, put: (e: Effect) => void): OpOutcome {
  const rec = storedMessage(view, op.id);
  if (rec.message.deleted_at !== undefined) return { op: 'message.delete', record: rec, deleted: false };
  const message = tombstoneOf(rec.message, op.at);
  const record = bury(view, rec, message, put);
  put({ op: 'event.append', event: op.event(message) });
  return { op: 'message.delete', record, deleted: true };
}

function redactMessage(view: Overlay, op: MessageRedactOp, put: (e: Effect) => void): OpOutcome {
  const rec = storedMessage(view, op.id);
  const before = rec.message;
  if (before.redacted_at !== undefined) return { op: 'message.redact', record: rec, redacted: false };
  const message = { ...tombstoneOf(before, before.deleted_at ?? op.at), redacted_at: op.at };
  const record = bury(view, rec, message, put);
  put({ op: 'message.scrub', message_id: message.id, message });
  put({ op: 'event.append', event: op.event(message) });
  return { op: 'message.redact', record, redacted: true };
}

function purgeMessages(view: Overlay, op: MessagePurgeOp, put: (e: Effect) => void): OpOutcome {
  const purged: string[] = [];
  const counted: Message[] = [];
  for (const id of op.ids) {
    const rec = view.message(id);
    if (!rec) continue;
    if (rec.message.deleted_at === undefined) counted.push(rec.message);
    put({ op: 'message.purge', message_id: id, conv: rec.conv });
    purged.push(id);
  }
  // The counts after the purges, so these stay one run of effects a backend may apply together.
  for (const m of counted) uncount(view, m, put);
  return { op: 'message.purge', purged };
}

/** Takes a message out of its thread's or DM's message_count. */
function uncount(view: Overlay, m: Message, put: (e: Effect) => void): void {
  const target = m.target;
  if (target.kind === 'thread') {
    const t = view.thread(target.thread_id);
    if (t) put({ op: 'thread.put', thread: { ...t, message_count: Math.max(0, t.message_count - 1) } });
  } else if (target.kind === 'dm') {
    const d = view.dm(target.dm_id);
    if (d) put({ op: 'dm.put', dm: { ...d, message_count: Math.max(0, d.message_count - 1) }, participants_stored: true });
  }
}
