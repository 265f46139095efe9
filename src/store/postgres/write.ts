// One write batch as one transaction: read (and row-lock) every record the intents could touch,
// decide the batch with the same resolver as the in-process backends (store/intents.ts), then
// apply its effects and number its events in one statement (effects-sql.ts). A race with another
// instance creating the same thread, DM, agent or message id fails on the primary key and the
// whole batch is decided again against the new state.
//
// Batches of room messages and plain events take the fast lane instead (fast-lane.ts).

import type pg from 'pg';
import type { MessageVersion } from '../../protocol/types.js';
import { resolveIntents, type Effect, type PartStates, type StateView } from '../intents.js';
import { partFor, type AnyPart } from '../part.js';
import type {
  AgentReadState,
  AgentRecord,
  DmRecord,
  MessageRecord,
  PairingState,
  RoomRecord,
  StoredEvent,
  ThreadRecord,
  WriteOp,
  WriteResult,
} from '../types.js';
import { isRace, isUnavailable, storeErrorOf } from './errors.js';
import { AGENT_COLS, DM_COLS, ROOM_COLS, THREAD_COLS, agentOf, dmOf, messageRecordOf, pairingOf, roomOf, threadOf } from './rows.js';
import { basisOf, StaleBasis, type Basis } from './basis.js';
import { basisGuard, basisParams, effectsStatement } from './effects-sql.js';
import type { Tables } from './tables.js';

/** How often a batch that lost a race is decided again before the error is returned. */
const MAX_ATTEMPTS = 8;

export interface Prefetched {
  rooms: Map<string, RoomRecord>;
  /** Active rooms in creation order, when an op needs them all (agent.remove). */
  activeRooms?: RoomRecord[];
  agents: Map<string, AgentRecord>;
  messages: Map<string, MessageRecord>;
  /** Earlier versions of the messages the batch edits, oldest first. */
  versions: Map<string, MessageVersion[]>;
  threads: Map<string, ThreadRecord>;
  dms: Map<string, DmRecord>;
  pairings: Map<string, PairingState>;
  readStates: Map<string, AgentReadState>;
}

/** Applies `ops` atomically; returns the outcomes and the appended events with their sequence numbers. */
export async function writeBatch(
  pool: pg.Pool,
  T: Tables,
  parts: readonly AnyPart[],
  ops: readonly WriteOp[],
  expect: ExpectEvents = () => {},
): Promise<WriteResult> {
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw storeErrorOf(err);
    }
    let destroy = false;
    try {
      await client.query('BEGIN');
      await checkBasis(client, T, basisOf(ops));
      const pre = await prefetch(client, T, parts, ops);
      const states = await prefetchParts(client, T, parts, ops);
      const { effects, outcomes } = resolveIntents(viewOf(pre), ops, states);
      const events = await run(client, T, states, pre, effects, expect);
      await client.query('COMMIT');
      return { outcomes, events };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => (destroy = true));
      // A client whose connection failed is closed rather than handed to the next write.
      if (isUnavailable(err)) destroy = true;
      if (isRace(err) && attempt < MAX_ATTEMPTS) continue;
      throw storeErrorOf(err);
    } finally {
      client.release(destroy);
    }
  }
}

/** Refuses the batch (`stale`) when a record of its basis has changed; keeps the others from changing until COMMIT. */
async function checkBasis(c: pg.ClientBase, T: Tables, basis: readonly Basis[]): Promise<void> {
  if (basis.length === 0) return;
  const r = await c.query<{ ok: boolean }>(
    `SELECT ${basisGuard(T, '$1::text[]', '$2::text[]', '$3::text[]', '$4::text[]')} AS ok`,
    basisParams(basis),
  );
  if (!r.rows[0]!.ok) throw new StaleBasis();
}

/** Whether the batch decides nothing on stored state but the novelty of its room messages (fast-lane.ts). */
export function optimistic(ops: readonly WriteOp[]): boolean {
  return ops.length > 0 && ops.every((op) => op.op === 'event.append' || (op.op === 'message.insert' && !op.thread && !op.dm));
}

export function emptyPrefetch(): Prefetched {
  return {
    rooms: new Map(),
    agents: new Map(),
    messages: new Map(),
    versions: new Map(),
    threads: new Map(),
    dms: new Map(),
    pairings: new Map(),
    readStates: new Map(),
  };
}

/** No part decides anything: batches of core ops only (the fast lane's). */
export const NO_PARTS: PartStates = { parts: [], state: () => undefined };

/**
 * What the batch's part ops are decided on: each part reads (and locks) its own, after the core's
 * rows are locked, in the order the parts are listed.
 */
async function prefetchParts(c: pg.ClientBase, T: Tables, parts: readonly AnyPart[], ops: readonly WriteOp[]): Promise<PartStates> {
  const states = new Map<AnyPart, unknown>();
  for (const p of parts) {
    const mine = ops.filter((op) => p.ops.includes(op.op));
    if (mine.length > 0) states.set(p, await p.postgres.prefetch(c, T, mine));
  }
  return { parts, state: (p) => states.get(p) };
}

/** Told the ids of the events a statement is about to append (feed.ts waits for this process's own copies). */
export type ExpectEvents = (eventIds: string[]) => void;

/** Applies the effects in one statement; returns the appended events, numbered. */
async function run(
  c: pg.ClientBase,
  T: Tables,
  states: PartStates,
  pre: Prefetched,
  effects: Effect[],
  expect: ExpectEvents,
): Promise<StoredEvent[]> {
  const present = {
    rooms: new Set(pre.rooms.keys()),
    agents: new Set(pre.agents.keys()),
    threads: new Set(pre.threads.keys()),
    dms: new Set(pre.dms.keys()),
    pairings: new Set(pre.pairings.keys()),
    readStates: new Set(pre.readStates.keys()),
  };
  const st = effectsStatement(T, present, effects, states.parts, states);
  if (st.events.length > 0) expect(st.events.map((e) => e.id));
  if (st.text === 'SELECT NULL::text AS last') return [];
  const r = await c.query<{ last: string | null }>(st.text, st.values);
  if (st.after) await c.query(st.after.text, st.after.values);
  if (st.events.length === 0) return [];
  const last = Number(r.rows[0]!.last);
  const first = last - st.events.length + 1;
  return st.events.map((event, i) => ({ seq: first + i, event }));
}

function idsOf(parts: readonly AnyPart[], ops: readonly WriteOp[]) {
  const rooms = new Set<string>();
  const agents = new Set<string>();
  const messages = new Set<string>();
  // Messages edited or deleted: their versions are read, and a deleted one's thread or DM.
  const changed = new Set<string>();
  // Messages purged: their thread or DM is read (its count goes down).
  const purged = new Set<string>();
  const threads = new Set<string>();
  const dms = new Set<string>();
  const pairings = new Set<string>();
  const readStates = new Set<string>();
  let allRooms = false;
  for (const op of ops) {
    switch (op.op) {
      case 'room.create':
      case 'room.declare':
        rooms.add(op.room.id);
        break;
      case 'room.remove':
        rooms.add(op.id);
        break;
      case 'room.members.change':
        rooms.add(op.room_id);
        break;
      case 'agent.claim':
        agents.add(op.agent.id);
        break;
      case 'agent.remove':
        agents.add(op.id);
        readStates.add(op.id);
        allRooms = true;
        break;
      case 'message.insert':
        // A minted id cannot be stored yet (the primary key still refuses a collision).
        if (!op.minted) messages.add(op.record.message.id);
        if (op.thread) threads.add(op.thread.id);
        if (op.dm) dms.add(op.dm.id);
        break;
      case 'message.edit':
      case 'message.delete':
      case 'message.redact':
        messages.add(op.id);
        changed.add(op.id);
        break;
      case 'message.purge':
        for (const id of op.ids) {
          messages.add(id);
          purged.add(id);
        }
        break;
      case 'pairing.state':
        pairings.add(op.pairing_id);
        break;
      case 'agent.read_state':
        readStates.add(op.agent_id);
        break;
      default:
        for (const id of partFor(parts, op)?.needs(op).messages ?? []) messages.add(id);
        break;
    }
  }
  return { rooms, agents, messages, changed, purged, threads, dms, pairings, readStates, allRooms };
}

/** Reads what the batch may decide on, locking existing rows (in one order, to avoid deadlocks). */
async function prefetch(c: pg.ClientBase, T: Tables, parts: readonly AnyPart[], ops: readonly WriteOp[]): Promise<Prefetched> {
  const ids = idsOf(parts, ops);
  const pre: Prefetched = {
    rooms: new Map(),
    agents: new Map(),
    messages: new Map(),
    versions: new Map(),
    threads: new Map(),
    dms: new Map(),
    pairings: new Map(),
    readStates: new Map(),
  };
  const list = (s: Set<string>) => [...s].sort();
  if (ids.rooms.size > 0 || ids.allRooms) {
    const where = ids.allRooms ? 'id = ANY($1) OR removed_at IS NULL' : 'id = ANY($1)';
    const r = await c.query(`SELECT ${ROOM_COLS} FROM ${T.rooms} WHERE ${where} ORDER BY seq FOR UPDATE`, [list(ids.rooms)]);
    for (const row of r.rows) pre.rooms.set(row.id, roomOf(row));
    if (ids.allRooms) pre.activeRooms = [...pre.rooms.values()].filter((x) => !x.removed_at);
  }
  if (ids.agents.size > 0) {
    const r = await c.query(`SELECT ${AGENT_COLS} FROM ${T.agents} WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [list(ids.agents)]);
    for (const row of r.rows) pre.agents.set(row.id, agentOf(row));
  }
  if (ids.messages.size > 0) {
    // Locked, before the threads and DMs (a deleted message's own are locked next): an edit or
    // delete changes the row, and a part's record of it (its part may lock the row again) must not
    // be added to a message deleted meanwhile. One order for every batch, so none waits on another in a cycle.
    const r = await c.query({
      name: `${T.prefix}msg_lock`,
      text: `SELECT id, conv, event_id, body FROM ${T.messages} WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`,
      values: [list(ids.messages)],
    });
    for (const row of r.rows) pre.messages.set(row.id, messageRecordOf(row));
    for (const id of [...ids.changed, ...ids.purged]) {
      const t = pre.messages.get(id)?.message.target;
      if (t?.kind === 'thread') ids.threads.add(t.thread_id);
      else if (t?.kind === 'dm') ids.dms.add(t.dm_id);
    }
  }
  if (ids.changed.size > 0) {
    // Every earlier version: an edit wakes only agents none of them mentioned.
    const r = await c.query({
      name: `${T.prefix}ver_get`,
      text: `SELECT message_id, body FROM ${T.message_versions} WHERE message_id = ANY($1) ORDER BY message_id, version`,
      values: [list(ids.changed)],
    });
    for (const row of r.rows) {
      const l = pre.versions.get(row.message_id) ?? [];
      l.push(JSON.parse(row.body) as MessageVersion);
      pre.versions.set(row.message_id, l);
    }
  }
  if (ids.threads.size > 0) {
    const r = await c.query({
      name: `${T.prefix}thr_lock`,
      text: `SELECT ${THREAD_COLS} FROM ${T.threads} WHERE id = ANY($1) ORDER BY id FOR UPDATE`,
      values: [list(ids.threads)],
    });
    for (const row of r.rows) pre.threads.set(row.id, threadOf(row));
  }
  if (ids.dms.size > 0) {
    const r = await c.query({
      name: `${T.prefix}dm_lock`,
      text: `SELECT ${DM_COLS} FROM ${T.dms} WHERE id = ANY($1) ORDER BY id FOR UPDATE`,
      values: [list(ids.dms)],
    });
    for (const row of r.rows) pre.dms.set(row.id, dmOf(row));
  }
  if (ids.pairings.size > 0) {
    const r = await c.query(
      `SELECT pairing_id, seq, answered FROM ${T.pairing_state} WHERE pairing_id = ANY($1) ORDER BY pairing_id FOR UPDATE`,
      [list(ids.pairings)],
    );
    for (const row of r.rows) pre.pairings.set(row.pairing_id, pairingOf(row));
  }
  if (ids.readStates.size > 0) {
    const r = await c.query(`SELECT agent_id, body FROM ${T.agent_read_state} WHERE agent_id = ANY($1) ORDER BY agent_id FOR UPDATE`, [
      list(ids.readStates),
    ]);
    for (const row of r.rows) pre.readStates.set(row.agent_id, JSON.parse(row.body) as AgentReadState);
  }
  return pre;
}

export function viewOf(pre: Prefetched): StateView {
  return {
    room: (id) => pre.rooms.get(id),
    // Only batches with agent.remove ask; prefetch loaded every active room for them.
    rooms: () => pre.activeRooms ?? [...pre.rooms.values()].filter((r) => !r.removed_at),
    agent: (id) => pre.agents.get(id),
    hasMessage: (id) => pre.messages.has(id),
    message: (id) => pre.messages.get(id),
    versions: (id) => pre.versions.get(id) ?? [],
    thread: (id) => pre.threads.get(id),
    dm: (id) => pre.dms.get(id),
    pairing: (id) => pre.pairings.get(id),
    readState: (id) => pre.readStates.get(id),
  };
}
