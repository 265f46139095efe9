// Copies a whole network from any store (read through the Store contract) into an empty Postgres
// schema, in one transaction: the target ends up with the complete network or unchanged. Events
// keep their sequence numbers (attachment cursors and Last-Event-ID stay valid) and agents their
// credential keys (agent tokens keep working). Messages are read in event order, so they land in
// the order they were first stored.

import pg from 'pg';
import type { Artifact } from '../../protocol/types.js';
import { StoreError, type RoomRecord, type Store, type StoredEvent, type ThreadRecord } from '../types.js';
import { migrate } from './schema.js';
import { ROOM_COLS, AGENT_COLS, THREAD_COLS, DM_COLS, MESSAGE_COLS, agentParams, artifactParams, dmParams, messageParams, roomParams, threadParams } from './rows.js';
import { tablesOf, type Tables } from './tables.js';

export interface CopyCounts {
  rooms: number;
  agents: number;
  threads: number;
  dms: number;
  messages: number;
  artifacts: number;
  events: number;
  last_seq: number;
  pairings: number;
}

export interface CopyOptions {
  url: string;
  schema: string;
  /** Pairing ids whose outbox state is copied (the configured pairings). */
  pairingIds: string[];
  onProgress?: (copied: number, total: number) => void;
}

const PAGE = 1000;
const ALL = { limit: 1_000_000_000 };

/** Thrown when the target schema already holds a network. */
export class TargetNotEmpty extends StoreError {
  constructor(what: string) {
    super('conflict', `the target schema already holds a network (${what}); copy only into an empty schema`);
  }
}

/** Copies `source` into the target schema (created and migrated when absent); returns what was copied. */
export async function copyToPostgres(source: Store, o: CopyOptions): Promise<CopyCounts> {
  const T = tablesOf(o.schema);
  const client = new pg.Client({ connectionString: o.url, connectionTimeoutMillis: 10_000, application_name: 'svc store copy' });
  client.on('error', () => {});
  await client.connect();
  try {
    await migrate(client, o.schema);
    await client.query('BEGIN');
    try {
      // Instances starting on the target wait for the copy instead of writing into it.
      await client.query(`LOCK TABLE ${T.events}, ${T.rooms}, ${T.agents}, ${T.messages} IN EXCLUSIVE MODE`);
      await refuseNonEmpty(client, T);
      const counts = await copyAll(client, T, source, o);
      await client.query('COMMIT');
      return counts;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    await client.end().catch(() => {});
  }
}

async function refuseNonEmpty(c: pg.Client, T: Tables): Promise<void> {
  const r = await c.query<{ rooms: string; agents: string; messages: string; events: string }>(
    `SELECT (SELECT count(*) FROM ${T.rooms}) AS rooms, (SELECT count(*) FROM ${T.agents}) AS agents, ` +
      `(SELECT count(*) FROM ${T.messages}) AS messages, (SELECT count(*) FROM ${T.events}) AS events`,
  );
  const row = r.rows[0]!;
  const held = (['rooms', 'agents', 'messages', 'events'] as const).filter((k) => Number(row[k]) > 0).map((k) => `${row[k]} ${k}`);
  if (held.length > 0) throw new TargetNotEmpty(held.join(', '));
}

/** Inserts rows through one multi-row statement per chunk. */
async function insertRows(c: pg.Client, table: string, cols: string, rows: unknown[][]): Promise<void> {
  const width = cols.split(',').length;
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const values = chunk.map((_, r) => `(${Array.from({ length: width }, (__, k) => `$${r * width + k + 1}`).join(', ')})`).join(', ');
    await c.query(`INSERT INTO ${table} (${cols}) VALUES ${values}`, chunk.flat());
  }
}

async function copyAll(c: pg.Client, T: Tables, source: Store, o: CopyOptions): Promise<CopyCounts> {
  const total = (await source.stats()).messages;
  const roomIds = new Set<string>();
  let messages = 0;
  let events = 0;
  let last = 0;
  o.onProgress?.(0, total);
  for (;;) {
    const page: StoredEvent[] = await source.eventsAfter(last, PAGE);
    if (page.length === 0) break;
    const msgRows: unknown[][] = [];
    const evRows: unknown[][] = [];
    for (const e of page) {
      const ev = e.event;
      if (ev.room_id) roomIds.add(ev.room_id);
      const m = ev.message;
      let byRef = false;
      if (ev.type === 'message.created' && m) {
        const rec = await source.getMessage(m.id);
        if (rec && rec.event_id === ev.id) {
          const body = JSON.stringify(rec.message);
          msgRows.push(messageParams(rec, body));
          byRef = body === JSON.stringify(m);
          if (rec.message.target.kind !== 'dm' && rec.message.target.room_id) roomIds.add(rec.message.target.room_id);
        }
      }
      evRows.push([e.seq, ev.id, ev.type, byRef ? m!.id : null, JSON.stringify(byRef ? { ...ev, message: null } : ev)]);
    }
    await insertRows(c, T.messages, MESSAGE_COLS, msgRows);
    await insertRows(c, T.events, 'seq, event_id, type, message_id, body', evRows);
    messages += msgRows.length;
    events += evRows.length;
    last = page[page.length - 1]!.seq;
    o.onProgress?.(messages, total);
  }
  if (messages !== total) {
    throw new StoreError('corrupt', `the source holds ${total} messages but ${messages} were reached through their events; nothing was copied`);
  }
  await c.query(`UPDATE ${T.event_counter} SET seq = $1 WHERE id = 1`, [last]);

  // Rooms: active ones and every removed one an event names, in creation order.
  const active = await source.listRooms();
  for (const r of active) roomIds.add(r.id);
  const rooms: RoomRecord[] = [];
  for (const id of roomIds) {
    const r = await source.getRoom(id);
    if (r) rooms.push(r);
  }
  const order = new Map(active.map((r, i) => [r.id, i]));
  rooms.sort((a, b) => a.created_at.localeCompare(b.created_at) || (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  await insertRows(c, T.rooms, ROOM_COLS, rooms.map(roomParams));

  const agents = await source.listAgents();
  await insertRows(c, T.agents, AGENT_COLS, agents.map(agentParams));

  const threads: ThreadRecord[] = [];
  for (const r of rooms) threads.push(...(await source.listThreads(r.id, ALL)).items);
  threads.sort((a, b) => a.created_at.localeCompare(b.created_at));
  await insertRows(c, T.threads, THREAD_COLS, threads.map(threadParams));

  const dms = await source.listDms();
  await insertRows(c, T.dms, DM_COLS, dms.map(dmParams));

  const artifacts: Artifact[] = [];
  for (const r of rooms) artifacts.push(...(await source.listArtifacts({ room_id: r.id }, ALL)).items);
  for (const d of dms) artifacts.push(...(await source.listArtifacts({ dm_id: d.id }, ALL)).items);
  artifacts.sort((a, b) => a.created_at.localeCompare(b.created_at));
  await insertRows(c, T.artifacts, 'id, target_kind, room_id, thread_id, dm_id, body', artifacts.map(artifactParams));

  let pairings = 0;
  for (const id of o.pairingIds) {
    const s = await source.getPairingState(id);
    if (!s) continue;
    await c.query(`INSERT INTO ${T.pairing_state} (pairing_id, seq, answered) VALUES ($1, $2, $3)`, [id, s.seq, s.answered]);
    pairings++;
  }
  return { rooms: rooms.length, agents: agents.length, threads: threads.length, dms: dms.length, messages, artifacts: artifacts.length, events, last_seq: last, pairings };
}
