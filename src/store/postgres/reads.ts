// Reads: point lookups by primary key and keyset pages by the creation sequence of each table,
// with the same cursor meaning as the other backends (protocol/pagination.ts): the cursor is an
// item id, `before` gives the newest `limit` older ones, `after` the oldest `limit` newer ones.

import type pg from 'pg';
import type { Artifact, Message, MessageVersion } from '../../protocol/types.js';
import { UnknownCursor } from '../../protocol/pagination.js';
import {
  StoreError,
  type AgentRecord,
  type ArtifactFilter,
  type DmFilter,
  type DmRecord,
  type ExpiredQuery,
  type MessageRecord,
  type PageQuery,
  type PageResult,
  type PairingState,
  type AgentReadState,
  type MemberQuery,
  type RoomFilter,
  type RoomRecord,
  type StoredEvent,
  type ThreadRecord,
} from '../types.js';
import { storeErrorOf } from './errors.js';
import {
  AGENT_COLS,
  DM_COLS,
  ROOM_COLS,
  THREAD_COLS,
  agentOf,
  dmOf,
  eventOf,
  jsonColumns,
  messageRecordOf,
  pairingOf,
  roomOf,
  threadOf,
} from './rows.js';
import type { Tables } from './tables.js';
import { Lookups, type Versioned } from './lookups.js';

type Row = Record<string, unknown>;

/** Clamps a page size to what every backend treats alike. */
function clampLimit(n: number): number {
  if (!(n > 0)) return 0;
  return Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER - 1);
}

export class Reads {
  private readonly lookups;

  constructor(
    private readonly pool: pg.Pool,
    private readonly T: Tables,
  ) {
    this.lookups = new Lookups(pool, 'lookup_any', {
      room: { table: T.rooms, cols: ROOM_COLS, of: roomOf },
      agent: { table: T.agents, cols: AGENT_COLS, of: agentOf },
      message: { table: T.messages, cols: 'id, body, conv, event_id', of: messageRecordOf },
      thread: { table: T.threads, cols: THREAD_COLS, of: threadOf },
      dm: { table: T.dms, cols: DM_COLS, of: dmOf },
    });
  }

  /** Runs a query, turning a lost connection into StoreError('unavailable'). */
  async rows(text: string, values: unknown[] = [], name?: string): Promise<Row[]> {
    try {
      return (await this.pool.query(name ? { name, text, values } : { text, values })).rows as Row[];
    } catch (err) {
      throw storeErrorOf(err);
    }
  }

  getRoom(id: string): Promise<RoomRecord | undefined> {
    return this.lookups.get('room', id);
  }

  /** The room with its row version (tentative.ts). */
  versionedRoom(id: string): Promise<Versioned<RoomRecord> | undefined> {
    return this.lookups.versioned('room', id);
  }

  async listRooms(): Promise<RoomRecord[]> {
    return (await this.rows(`SELECT ${ROOM_COLS} FROM ${this.T.rooms} WHERE removed_at IS NULL ORDER BY seq`)).map(roomOf);
  }

  pageRooms(f: RoomFilter, q: PageQuery): Promise<PageResult<RoomRecord>> {
    const conds = ['removed_at IS NULL'];
    const params: unknown[] = [];
    if (!f.all) {
      const any = ["visibility = 'public'"];
      if (f.pairing !== undefined) {
        params.push(f.pairing);
        any.push(`$${params.length} = ANY(federation_pairings)`);
      }
      if (f.members !== undefined) {
        params.push(f.members);
        any.push(`members && $${params.length}::text[]`);
      }
      conds.push(`(${any.join(' OR ')})`);
    }
    return this.page(this.T.rooms, ROOM_COLS, conds.join(' AND '), params, q, roomOf);
  }

  /** Through the GIN indexes on rooms.members and dms.participant_ids. */
  async conversationsWith(q: MemberQuery): Promise<{ rooms: RoomRecord[]; dms: DmRecord[] }> {
    const where = (cols: string, table: string, cond: string, ids: readonly string[]) =>
      ids.length === 0 ? Promise.resolve([]) : this.rows(`SELECT ${cols} FROM ${table} WHERE ${cond} && $1::text[] ORDER BY seq`, [ids]);
    const rooms = await where(ROOM_COLS, this.T.rooms, 'removed_at IS NULL AND members', q.members);
    const dms = await where(DM_COLS, this.T.dms, 'participant_ids', q.participants);
    return { rooms: rooms.map(roomOf), dms: dms.map(dmOf) };
  }

  getAgent(id: string): Promise<AgentRecord | undefined> {
    return this.lookups.get('agent', id);
  }

  /** The agent with its row version (tentative.ts). */
  versionedAgent(id: string): Promise<Versioned<AgentRecord> | undefined> {
    return this.lookups.versioned('agent', id);
  }

  async listAgents(): Promise<AgentRecord[]> {
    return (await this.rows(`SELECT ${AGENT_COLS} FROM ${this.T.agents} ORDER BY seq`)).map(agentOf);
  }

  async findAgentsByCredential(key: string): Promise<AgentRecord[]> {
    return (
      await this.rows(`SELECT ${AGENT_COLS} FROM ${this.T.agents} WHERE credential_key = $1 ORDER BY seq`, [key], 'agent_by_cred')
    ).map(agentOf);
  }

  getMessage(id: string): Promise<MessageRecord | undefined> {
    return this.lookups.get('message', id);
  }

  async messageVersions(id: string): Promise<MessageVersion[]> {
    const rows = await this.rows(
      `SELECT body FROM ${this.T.message_versions} WHERE message_id = $1 ORDER BY version`,
      [id],
      'msg_versions',
    );
    return rows.map((r) => JSON.parse(r.body as string) as MessageVersion);
  }

  listMessages(conv: string, q: PageQuery): Promise<PageResult<Message>> {
    return this.page(this.T.messages, 'body', 'conv = $1', [conv], q, (r) => JSON.parse(r.body as string) as Message);
  }

  /**
   * Walks the conversation oldest first on messages_by_conv (conv, seq), reading at most `limit`
   * rows: a row has expired while it is past the newest `keep` (the seq found `keep` rows from the
   * newest, ORDER BY seq DESC OFFSET keep) or created before `before`; the first that has not ends it.
   */
  async expiredMessages(q: ExpiredQuery): Promise<string[]> {
    const limit = clampLimit(q.limit);
    if (limit === 0) return [];
    const over =
      q.keep === undefined ? 'false' : `m.seq <= (SELECT seq FROM ${this.T.messages} WHERE conv = $1 ORDER BY seq DESC OFFSET $3 LIMIT 1)`;
    const rows = await this.rows(
      `SELECT m.id, m.created_at, coalesce(${over}, false) AS over FROM ${this.T.messages} m WHERE m.conv = $1 ORDER BY m.seq LIMIT $2`,
      q.keep === undefined ? [q.conv, limit] : [q.conv, limit, Math.max(0, Math.floor(q.keep))],
      q.keep === undefined ? 'expired_by_age' : 'expired_by_count',
    );
    const out: string[] = [];
    for (const r of rows) {
      if (r.over !== true && !(q.before !== undefined && (r.created_at as string) < q.before)) break;
      out.push(r.id as string);
    }
    return out;
  }

  getThread(id: string): Promise<ThreadRecord | undefined> {
    return this.lookups.get('thread', id);
  }

  listThreads(roomId: string, q: PageQuery): Promise<PageResult<ThreadRecord>> {
    return this.page(this.T.threads, THREAD_COLS, 'room_id = $1', [roomId], q, threadOf);
  }

  getDm(id: string): Promise<DmRecord | undefined> {
    return this.lookups.get('dm', id);
  }

  async listDms(): Promise<DmRecord[]> {
    return (await this.rows(`SELECT ${DM_COLS} FROM ${this.T.dms} ORDER BY seq`)).map(dmOf);
  }

  pageDms(f: DmFilter, q: PageQuery): Promise<PageResult<DmRecord>> {
    if (f.all) return this.page(this.T.dms, DM_COLS, 'true', [], q, dmOf);
    return this.page(this.T.dms, DM_COLS, 'participant_ids && $1::text[]', [f.participants ?? []], q, dmOf);
  }

  listArtifacts(f: ArtifactFilter, q: PageQuery): Promise<PageResult<Artifact>> {
    const conds: string[] = [];
    const params: unknown[] = [];
    if (f.room_id !== undefined) {
      params.push(f.room_id);
      conds.push(`target_kind IN ('room', 'thread') AND room_id = $${params.length}`);
    }
    if (f.thread_id !== undefined) {
      params.push(f.thread_id);
      conds.push(`target_kind = 'thread' AND thread_id = $${params.length}`);
    }
    if (f.dm_id !== undefined) {
      params.push(f.dm_id);
      conds.push(`target_kind = 'dm' AND dm_id = $${params.length}`);
    }
    return this.page(
      this.T.artifacts,
      'body',
      conds.length > 0 ? conds.join(' AND ') : 'true',
      params,
      q,
      (r) => JSON.parse(r.body as string) as Artifact,
    );
  }

  async getPairingState(id: string): Promise<PairingState | undefined> {
    const [r] = await this.rows(`SELECT seq, answered FROM ${this.T.pairing_state} WHERE pairing_id = $1`, [id]);
    return r && pairingOf(r);
  }

  async getAgentReadState(agentId: string): Promise<AgentReadState | undefined> {
    const [r] = await this.rows(`SELECT body FROM ${this.T.agent_read_state} WHERE agent_id = $1`, [agentId]);
    return r && (JSON.parse(r.body as string) as AgentReadState);
  }

  async eventsAfter(seq: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.rows(
      `SELECT e.seq, e.message_id, e.body, m.body AS mbody FROM ${this.T.events} e LEFT JOIN ${this.T.messages} m ON m.id = e.message_id ` +
        'WHERE e.seq > $1 ORDER BY e.seq LIMIT $2',
      [Math.max(0, Math.floor(seq)), clampLimit(limit)],
      'events_after',
    );
    return rows.map(eventOf);
  }

  /**
   * eventsAfter for the event feed: the first event of each room in the page also carries that
   * room (`StoredEvent.room`), read in the same statement, so resolving the page's audiences
   * costs no second round trip. Once per room keeps the members array out of every other row.
   */
  async feedEventsAfter(seq: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.rows(
      `WITH page AS (SELECT e.seq, e.message_id, e.body, m.body AS mbody, m.room_id FROM ${this.T.events} e ` +
        `LEFT JOIN ${this.T.messages} m ON m.id = e.message_id WHERE e.seq > $1 ORDER BY e.seq LIMIT $2), ` +
        'firsts AS (SELECT p.*, CASE WHEN p.room_id IS NOT NULL AND row_number() OVER (PARTITION BY p.room_id ORDER BY p.seq) = 1 THEN p.room_id END AS first_of FROM page p) ' +
        `SELECT f.seq, f.message_id, f.body, f.mbody, CASE WHEN r.id IS NULL THEN NULL ELSE ${jsonColumns(ROOM_COLS, 'r.')} END AS room ` +
        `FROM firsts f LEFT JOIN ${this.T.rooms} r ON r.id = f.first_of ORDER BY f.seq`,
      [Math.max(0, Math.floor(seq)), clampLimit(limit)],
      'feed_events_after',
    );
    return rows.map((r) => {
      const e = eventOf(r);
      if (r.room) e.room = roomOf(r.room as Row);
      return e;
    });
  }

  async eventSeq(eventId: string): Promise<number | undefined> {
    const [r] = await this.rows(`SELECT seq FROM ${this.T.events} WHERE event_id = $1 ORDER BY seq DESC LIMIT 1`, [eventId], 'event_seq');
    return r ? Number(r.seq) : undefined;
  }

  async messageSeqs(ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (ids.length === 0) return out;
    const rows = await this.rows(
      `SELECT m.id, e.seq FROM ${this.T.messages} m JOIN ${this.T.events} e ON e.event_id = m.event_id WHERE m.id = ANY($1)`,
      [[...ids]],
      'message_seqs',
    );
    for (const r of rows) out.set(String(r.id), Number(r.seq));
    return out;
  }

  async lastEventSeq(): Promise<number> {
    const [r] = await this.rows(`SELECT seq FROM ${this.T.event_counter} WHERE id = 1`);
    return Number(r?.seq ?? 0);
  }

  async counts(): Promise<{ messages: number; events: number }> {
    const [r] = await this.rows(`SELECT (SELECT count(*) FROM ${this.T.messages}) AS m, (SELECT count(*) FROM ${this.T.events}) AS e`);
    return { messages: Number(r?.m ?? 0), events: Number(r?.e ?? 0) };
  }

  /**
   * One page of rows matching `where` (whose parameters are `params`), in seq order, reading at
   * most limit + 1 rows; the cursor's seq is looked up among the matching rows.
   */
  private async page<T>(
    table: string,
    cols: string,
    where: string,
    params: unknown[],
    q: PageQuery,
    map: (r: Row) => T,
  ): Promise<PageResult<T>> {
    const seqOf = async (cursor: string): Promise<string> => {
      const [r] = await this.rows(`SELECT seq FROM ${table} WHERE id = $${params.length + 1} AND ${where} ORDER BY seq LIMIT 1`, [
        ...params,
        cursor,
      ]);
      if (!r) throw new StoreError('unknown_cursor', new UnknownCursor(cursor).message);
      return String(r.seq);
    };
    const lo = q.after !== undefined ? await seqOf(q.after) : undefined;
    const hi = q.before !== undefined ? await seqOf(q.before) : undefined;
    const limit = clampLimit(q.limit);
    const args = [...params];
    let sql = `SELECT ${cols} FROM ${table} WHERE ${where}`;
    if (lo !== undefined) {
      args.push(lo);
      sql += ` AND seq > $${args.length}`;
    }
    if (hi !== undefined) {
      args.push(hi);
      sql += ` AND seq < $${args.length}`;
    }
    args.push(limit + 1);
    if (lo !== undefined) {
      // Oldest `limit` newer than `after`; everything up to `after` is older.
      const rows = await this.rows(`${sql} ORDER BY seq ASC LIMIT $${args.length}`, args);
      return { items: rows.slice(0, limit).map(map), has_more: rows.length > limit, has_older: true };
    }
    // Newest `limit` (older than `before`, if given); a row beyond them is the only older one.
    const rows = await this.rows(`${sql} ORDER BY seq DESC LIMIT $${args.length}`, args);
    const more = rows.length > limit;
    return { items: rows.slice(0, limit).reverse().map(map), has_more: more, has_older: more };
  }
}
