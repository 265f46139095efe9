// One write batch as one transaction: read (and row-lock) every record the intents could touch,
// decide the batch with the same resolver as the in-process backends (store/intents.ts), apply its
// effects, then number its events. Records the batch creates are plain INSERTs, so a race with
// another instance creating the same thread, DM, agent or message id fails on the primary key and
// the whole batch is decided again against the new state. Event numbers come from one counter row
// locked by the batch's last statement, held until COMMIT: commits happen in sequence order.

import type pg from 'pg';
import type { Message } from '../../protocol/types.js';
import { resolveIntents, type Effect, type StateView } from '../intents.js';
import { StoreError, type AgentRecord, type DmRecord, type MessageRecord, type PairingState, type RoomRecord, type StoredEvent, type ThreadRecord, type WriteOp, type WriteResult } from '../types.js';
import { isRace, isUnavailable, storeErrorOf } from './errors.js';
import { AGENT_COLS, DM_COLS, ROOM_COLS, THREAD_COLS, agentOf, agentParams, artifactParams, dmOf, dmParams, messageParams, messageRecordOf, pairingOf, roomOf, roomParams, threadOf, threadParams } from './rows.js';
import type { Tables } from './tables.js';

/** How often a batch that lost a race is decided again before the error is returned. */
const MAX_ATTEMPTS = 8;

interface Prefetched {
  rooms: Map<string, RoomRecord>;
  /** Active rooms in creation order, when an op needs them all (agent.remove). */
  activeRooms?: RoomRecord[];
  agents: Map<string, AgentRecord>;
  messages: Map<string, MessageRecord>;
  threads: Map<string, ThreadRecord>;
  dms: Map<string, DmRecord>;
  pairings: Map<string, PairingState>;
}

/** Applies `ops` atomically; returns the outcomes and the appended events with their sequence numbers. */
export async function writeBatch(pool: pg.Pool, T: Tables, ops: readonly WriteOp[]): Promise<WriteResult> {
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
      const pre = await prefetch(client, T, ops);
      const { effects, outcomes } = resolveIntents(viewOf(pre), ops);
      const events = await applyEffects(client, T, pre, effects);
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

function idsOf(ops: readonly WriteOp[]) {
  const rooms = new Set<string>();
  const agents = new Set<string>();
  const messages = new Set<string>();
  const threads = new Set<string>();
  const dms = new Set<string>();
  const pairings = new Set<string>();
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
        allRooms = true;
        break;
      case 'message.insert':
        messages.add(op.record.message.id);
        if (op.thread) threads.add(op.thread.id);
        if (op.dm) dms.add(op.dm.id);
        break;
      case 'pairing.state':
        pairings.add(op.pairing_id);
        break;
      default:
        break;
    }
  }
  return { rooms, agents, messages, threads, dms, pairings, allRooms };
}

/** Reads what the batch may decide on, locking existing rows (in one order, to avoid deadlocks). */
async function prefetch(c: pg.ClientBase, T: Tables, ops: readonly WriteOp[]): Promise<Prefetched> {
  const ids = idsOf(ops);
  const pre: Prefetched = { rooms: new Map(), agents: new Map(), messages: new Map(), threads: new Map(), dms: new Map(), pairings: new Map() };
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
    const r = await c.query({ name: `${T.prefix}msg_get`, text: `SELECT id, conv, event_id, body FROM ${T.messages} WHERE id = ANY($1)`, values: [list(ids.messages)] });
    for (const row of r.rows) pre.messages.set(row.id, messageRecordOf(row));
  }
  if (ids.threads.size > 0) {
    const r = await c.query({ name: `${T.prefix}thr_lock`, text: `SELECT ${THREAD_COLS} FROM ${T.threads} WHERE id = ANY($1) ORDER BY id FOR UPDATE`, values: [list(ids.threads)] });
    for (const row of r.rows) pre.threads.set(row.id, threadOf(row));
  }
  if (ids.dms.size > 0) {
    const r = await c.query({ name: `${T.prefix}dm_lock`, text: `SELECT ${DM_COLS} FROM ${T.dms} WHERE id = ANY($1) ORDER BY id FOR UPDATE`, values: [list(ids.dms)] });
    for (const row of r.rows) pre.dms.set(row.id, dmOf(row));
  }
  if (ids.pairings.size > 0) {
    const r = await c.query(`SELECT pairing_id, seq, answered FROM ${T.pairing_state} WHERE pairing_id = ANY($1) ORDER BY pairing_id FOR UPDATE`, [list(ids.pairings)]);
    for (const row of r.rows) pre.pairings.set(row.pairing_id, pairingOf(row));
  }
  return pre;
}

function viewOf(pre: Prefetched): StateView {
  return {
    room: (id) => pre.rooms.get(id),
    // Only batches with agent.remove ask; prefetch loaded every active room for them.
    rooms: () => pre.activeRooms ?? [...pre.rooms.values()].filter((r) => !r.removed_at),
    agent: (id) => pre.agents.get(id),
    hasMessage: (id) => pre.messages.has(id),
    message: (id) => pre.messages.get(id),
    thread: (id) => pre.threads.get(id),
    dm: (id) => pre.dms.get(id),
    pairing: (id) => pre.pairings.get(id),
  };
}

/** Applies the effects in order; returns the appended events, numbered. */
async function applyEffects(c: pg.ClientBase, T: Tables, pre: Prefetched, effects: Effect[]): Promise<StoredEvent[]> {
  // A row the transaction saw or created is updated; any other is inserted, so a concurrent
  // creation of the same id fails on its key instead of being overwritten.
  const present = {
    rooms: new Set(pre.rooms.keys()),
    agents: new Set(pre.agents.keys()),
    threads: new Set(pre.threads.keys()),
    dms: new Set(pre.dms.keys()),
    pairings: new Set(pre.pairings.keys()),
  };
  const inserted = new Map<string, { message: Message; body: string }>();
  const events: { event: StoredEvent['event']; type: string; message_id: string | null; body: string }[] = [];
  for (const e of effects) {
    switch (e.op) {
      case 'room.put': {
        const p = roomParams(e.room);
        if (present.rooms.has(e.room.id)) {
          await c.query(`UPDATE ${T.rooms} SET name = $2, members = $3, visibility = $4, write_policy = $5, federation_pairings = $6, created_at = $7, updated_at = $8, removed_at = $9 WHERE id = $1`, p);
        } else {
          await c.query(`INSERT INTO ${T.rooms} (${ROOM_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, p);
          present.rooms.add(e.room.id);
        }
        break;
      }
      case 'agent.put': {
        const p = agentParams(e.agent);
        if (present.agents.has(e.agent.id)) {
          await c.query(`UPDATE ${T.agents} SET name = $2, actor_uid = $3, credential_key = $4, created_at = $5, updated_at = $6 WHERE id = $1`, p);
        } else {
          await c.query(`INSERT INTO ${T.agents} (${AGENT_COLS}) VALUES ($1, $2, $3, $4, $5, $6)`, p);
          present.agents.add(e.agent.id);
        }
        break;
      }
      case 'agent.delete':
        await c.query(`DELETE FROM ${T.agents} WHERE id = $1`, [e.id]);
        present.agents.delete(e.id);
        break;
      case 'message.insert': {
        const body = JSON.stringify(e.record.message);
        await c.query({
          name: `${T.prefix}msg_ins`,
          text: `INSERT INTO ${T.messages} (id, conv, event_id, room_id, thread_id, dm_id, from_id, created_at, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          values: messageParams(e.record, body),
        });
        inserted.set(e.record.message.id, { message: e.record.message, body });
        break;
      }
      case 'thread.put': {
        const p = threadParams(e.thread);
        if (present.threads.has(e.thread.id)) {
          await c.query({ name: `${T.prefix}thr_upd`, text: `UPDATE ${T.threads} SET room_id = $2, parent_message_id = $3, message_count = $4, last_message_at = $5, created_at = $6 WHERE id = $1`, values: p });
        } else {
          await c.query({ name: `${T.prefix}thr_ins`, text: `INSERT INTO ${T.threads} (${THREAD_COLS}) VALUES ($1, $2, $3, $4, $5, $6)`, values: p });
          present.threads.add(e.thread.id);
        }
        break;
      }
      case 'dm.put': {
        const p = dmParams(e.dm);
        if (present.dms.has(e.dm.id)) {
          await c.query({ name: `${T.prefix}dm_upd`, text: `UPDATE ${T.dms} SET participant_ids = $2, message_count = $3, last_message_at = $4, created_at = $5 WHERE id = $1`, values: p });
        } else {
          await c.query({ name: `${T.prefix}dm_ins`, text: `INSERT INTO ${T.dms} (${DM_COLS}) VALUES ($1, $2, $3, $4, $5)`, values: p });
          present.dms.add(e.dm.id);
        }
        break;
      }
      case 'artifact.insert':
        await c.query({ name: `${T.prefix}art_ins`, text: `INSERT INTO ${T.artifacts} (id, target_kind, room_id, thread_id, dm_id, body) VALUES ($1, $2, $3, $4, $5, $6)`, values: artifactParams(e.artifact) });
        break;
      case 'pairing.put': {
        const p = [e.pairing_id, e.state.seq, e.state.answered];
        if (present.pairings.has(e.pairing_id)) await c.query(`UPDATE ${T.pairing_state} SET seq = $2, answered = $3 WHERE pairing_id = $1`, p);
        else {
          await c.query(`INSERT INTO ${T.pairing_state} (pairing_id, seq, answered) VALUES ($1, $2, $3)`, p);
          present.pairings.add(e.pairing_id);
        }
        break;
      }
      case 'pairing.delete':
        await c.query(`DELETE FROM ${T.pairing_state} WHERE pairing_id = $1`, [e.pairing_id]);
        present.pairings.delete(e.pairing_id);
        break;
      case 'event.append': {
        const m = e.event.message;
        const ins = m ? inserted.get(m.id) : undefined;
        // Only a message identical to the one this batch stored is kept by reference, so reads
        // give back exactly the event that was appended.
        const byRef = m !== undefined && ins !== undefined && (ins.message === m || ins.body === JSON.stringify(m));
        events.push({
          event: e.event,
          type: e.event.type,
          message_id: byRef ? m.id : null,
          body: JSON.stringify(byRef ? { ...e.event, message: null } : e.event),
        });
        break;
      }
      default:
        throw new StoreError('corrupt', `unknown effect ${JSON.stringify((e as { op?: unknown }).op)}`);
    }
  }
  if (events.length === 0) return [];
  const r = await c.query<{ last: string }>({
    name: `${T.prefix}ev_append`,
    text:
      `WITH c AS (UPDATE ${T.event_counter} SET seq = seq + $1 WHERE id = 1 RETURNING seq), ` +
      `ins AS (INSERT INTO ${T.events} (seq, type, message_id, body) ` +
      `SELECT c.seq - $1 + x.ord, x.type, x.mid, x.body FROM c, unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS x(type, mid, body, ord) RETURNING seq) ` +
      `SELECT s.last::text AS last, pg_notify($5, s.last::text) FROM (SELECT max(seq) AS last FROM ins) s`,
    values: [events.length, events.map((x) => x.type), events.map((x) => x.message_id), events.map((x) => x.body), T.channel],
  });
  const last = Number(r.rows[0]!.last);
  const first = last - events.length + 1;
  return events.map((x, i) => ({ seq: first + i, event: x.event }));
}
