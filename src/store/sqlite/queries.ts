// The sqlite backend's queries: synchronous reads of the in-memory database. The store's read methods
// (read-methods.ts) wrap them in resolved promises, and intents resolve against them (as a StateView) inside a write.

import type { SqlValue } from 'sql.js';
import type { Artifact, Message, MessageVersion, ServiceEvent } from '../../protocol/types.js';
import { UnknownCursor } from '../../protocol/pagination.js';
import type { StateView } from '../intents.js';
import { cursorPage, roomMatches } from '../filters.js';

import {
  StoreError,
  type AgentRecord,
  type ArtifactFilter,
  type DmFilter,
  type DmRecord,
  type MemberQuery,
  type EventBody,
  type MessageRecord,
  type PageQuery,
  type PageResult,
  type PairingState,
  type AgentReadState,
  type RoomFilter,
  type RoomRecord,
  type StoredEvent,
  type ThreadRecord,
} from '../types.js';
import type { JournalOp } from './apply.js';
import type { Db } from './db.js';
import { deepFreeze } from '../deep-freeze.js';

/** Most room or agent bodies kept in memory by id. */
const READ_CACHE_MAX = 4096;

/** Clamps a page size to what both backends treat alike and SQLite's LIMIT accepts. */
function clampLimit(n: number): number {
  if (!(n > 0)) return 0;
  return Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER - 1);
}

const ROOM_BY_ID = 'SELECT body FROM rooms WHERE id = ?';
const AGENT_BY_ID = 'SELECT body FROM agents WHERE id = ?';

/** A cached row: its JSON, and its record parsed and frozen once a shared read asks for it. */
interface CachedRow<T> {
  json: string;
  record?: T;
}

/** The row's shared record, parsed and frozen on first use. */
function shared<T extends object>(row: CachedRow<T> | undefined): T | undefined {
  if (row) row.record ??= deepFreeze(JSON.parse(row.json) as T);
  return row?.record;
}

/** Reads ahead the pages of rows found by rowid (engine/prefetch.ts). */
export interface RowPrefetch {
  rows(rowids: readonly number[]): void;
  release(): void;
}

/** A conversation of kind ?1 with one of the members in the JSON array ?2, through conv_members. */
const MEMBERS_CONV = 'id IN (SELECT id FROM conv_members WHERE kind = ? AND member IN (SELECT value FROM json_each(?)))';

export class SqliteQueries implements StateView {
  /** Set when pages are read on demand: history pages read their rows' pages ahead. */
  prefetch: RowPrefetch | undefined;

  /**
   * Room and agent rows by id (null: no such row), read on every message send and every live
   * delivery's audience: the JSON, and the record parsed once and frozen, which the store's own
   * hot reads share (`room`, `agent`: decisions, the events' rooms) as the Postgres backend's
   * kept records are shared (tentative.ts); the public reads parse a copy (`roomCopy`). Parsing a
   * room of a hundred members cost a read about 5 µs, and each event's audience a new set of its
   * members. Entries are dropped before any write that touches their id, so a rolled-back write
   * leaves no trace.
   */
  private readonly roomRows = new Map<string, CachedRow<RoomRecord> | null>();
  private readonly agentRows = new Map<string, CachedRow<AgentRecord> | null>();

  constructor(private readonly db: Db) {}

  /** Drops the cached rows a batch is about to change. */
  forget(jops: readonly JournalOp[]): void {
    for (const op of jops) {
      if (op.op === 'room.put') this.roomRows.delete(op.room.id);
      else if (op.op === 'agent.put') this.agentRows.delete(op.agent.id);
      else if (op.op === 'agent.delete') this.agentRows.delete(op.id);
    }
  }

  forgetAll(): void {
    this.roomRows.clear();
    this.agentRows.clear();
  }

  /** A row by id through `cache`. */
  private cachedRow<T extends object>(cache: Map<string, CachedRow<T> | null>, sql: string, id: string): CachedRow<T> | undefined {
    let row = cache.get(id);
    if (row === undefined) {
      const json = this.db.one(sql, [id])?.[0] as string | undefined;
      row = json === undefined ? null : { json };
      // Lookups of ids that do not exist are cached too; the bound keeps that from growing.
      if (cache.size >= READ_CACHE_MAX) cache.clear();
      cache.set(id, row);
    }
    return row ?? undefined;
  }

  /** The room as a copy its caller may change (Store.getRoom). */
  roomCopy(id: string): RoomRecord | undefined {
    const row = this.cachedRow(this.roomRows, ROOM_BY_ID, id);
    return row && (JSON.parse(row.json) as RoomRecord);
  }

  /** The agent as a copy its caller may change (Store.getAgent). */
  agentCopy(id: string): AgentRecord | undefined {
    const row = this.cachedRow(this.agentRows, AGENT_BY_ID, id);
    return row && (JSON.parse(row.json) as AgentRecord);
  }

  // ---- StateView (and the store's reads) ----

  /** The room, frozen and shared: never changed by its readers. */
  room(id: string): RoomRecord | undefined {
    return shared(this.cachedRow(this.roomRows, ROOM_BY_ID, id));
  }

  rooms(): RoomRecord[] {
    return this.db.bodies('SELECT body FROM rooms WHERE removed = 0 ORDER BY seq');
  }

  /** The agent, frozen and shared: never changed by its readers. */
  agent(id: string): AgentRecord | undefined {
    return shared(this.cachedRow(this.agentRows, AGENT_BY_ID, id));
  }

  hasMessage(id: string): boolean {
    return this.db.one('SELECT 1 FROM messages WHERE id = ?', [id]) !== undefined;
  }

  message(id: string): MessageRecord | undefined {
    const r = this.db.one('SELECT body, conv, event_id FROM messages WHERE id = ?', [id]);
    return r && { message: JSON.parse(r[0] as string) as Message, conv: r[1] as string, event_id: r[2] as string };
  }

  /** A message's earlier versions, oldest first (a deleted message's were dropped with it). */
  versions(id: string): MessageVersion[] {
    return this.db.bodies('SELECT body FROM message_versions WHERE message_id = ? ORDER BY version', [id]);
  }

  /** A stored message's body JSON, as stored. */
  messageJson(id: string): string | undefined {
    return this.db.one('SELECT body FROM messages WHERE id = ?', [id])?.[0] as string | undefined;
  }

  thread(id: string): ThreadRecord | undefined {
    return this.db.body('SELECT body FROM threads WHERE id = ?', [id]);
  }

  dm(id: string): DmRecord | undefined {
    return this.db.body('SELECT body FROM dms WHERE id = ?', [id]);
  }

  pairing(id: string): PairingState | undefined {
    return this.db.body('SELECT body FROM pairings WHERE id = ?', [id]);
  }

  readState(agentId: string): AgentReadState | undefined {
    return this.db.body('SELECT body FROM agent_read_state WHERE agent_id = ?', [agentId]);
  }

  /** The seq of each message's `message.created` event (the first event holding it by reference). */
  messageSeqs(ids: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const id of ids) {
      const r = this.db.one('SELECT min(seq) FROM events WHERE message_id = ?', [id]);
      if (r && r[0] !== null) out.set(id, Number(r[0]));
    }
    return out;
  }

  // ---- listings ----

  pageRooms(filter: RoomFilter, q: PageQuery): PageResult<RoomRecord> {
    // Rooms are few and their visibility is decided on the member list: filtered here, not in SQL.
    return cursorPage(
      this.rooms().filter((r) => roomMatches(r, filter)),
      (r) => r.id,
      q,
    );
  }

  /**
   * Through conv_members: only the rows of the named members' conversations are read. One statement
   * per table for any number of ids (statements are cached per SQL text); conv_members holds no
   * removed room.
   */
  conversationsWith(q: MemberQuery): { rooms: RoomRecord[]; dms: DmRecord[] } {
    const pick = <T>(table: 'rooms' | 'dms', kind: 'room' | 'dm', ids: readonly string[]): T[] =>
      ids.length === 0
        ? []
        : this.db.bodies<T>(`SELECT body FROM ${table} WHERE ${MEMBERS_CONV} ORDER BY seq`, [kind, JSON.stringify(ids)]);
    return { rooms: pick('rooms', 'room', q.members), dms: pick('dms', 'dm', q.participants) };
  }

  agents(): AgentRecord[] {
    return this.db.bodies('SELECT body FROM agents ORDER BY seq');
  }

  agentsByCredential(credentialKey: string): AgentRecord[] {
    return this.db.bodies('SELECT body FROM agents WHERE credential_key = ? ORDER BY seq', [credentialKey]);
  }

  messages(conv: string, q: PageQuery): PageResult<Message> {
    return this.page('messages', 'conv = ?', [conv], q);
  }

  threads(roomId: string, q: PageQuery): PageResult<ThreadRecord> {
    return this.page('threads', 'room_id = ?', [roomId], q);
  }

  dms(): DmRecord[] {
    return this.db.bodies('SELECT body FROM dms ORDER BY seq');
  }

  /**
   * A page of DMs in SQL, the participants' through conv_members: reading every DM to page them
   * cost each `GET /v1/dms` a JSON parse per DM of the network (a soak makes thousands of DMs).
   */
  pageDms(filter: DmFilter, q: PageQuery): PageResult<DmRecord> {
    if (filter.all) return this.page('dms', '1 = 1', [], q);
    return this.page('dms', MEMBERS_CONV, ['dm', JSON.stringify(filter.participants ?? [])], q);
  }

  artifacts(filter: ArtifactFilter, q: PageQuery): PageResult<Artifact> {
    const conds: string[] = [];
    const params: SqlValue[] = [];
    if (filter.room_id !== undefined) {
      conds.push("target_kind IN ('room', 'thread') AND room_id = ?");
      params.push(filter.room_id);
    }
    if (filter.thread_id !== undefined) {
      conds.push("target_kind = 'thread' AND thread_id = ?");
      params.push(filter.thread_id);
    }
    if (filter.dm_id !== undefined) {
      conds.push("target_kind = 'dm' AND dm_id = ?");
      params.push(filter.dm_id);
    }
    return this.page('artifacts', conds.length > 0 ? conds.join(' AND ') : '1 = 1', params, q);
  }

  /**
   * One page of `table` rows matching `where`, in seq (creation) order, with the memory backend's
   * cursor semantics (protocol/pagination.ts) but reading at most limit + 1 rows.
   */
  private page<T>(table: string, where: string, params: SqlValue[], q: PageQuery): PageResult<T> {
    const seqOf = (cursor: string): number => {
      const r = this.db.one(`SELECT seq FROM ${table} WHERE id = ? AND ${where} ORDER BY seq LIMIT 1`, [cursor, ...params]);
      if (!r) throw new StoreError('unknown_cursor', new UnknownCursor(cursor).message);
      return Number(r[0]);
    };
    const lo = q.after !== undefined ? seqOf(q.after) : undefined;
    const hi = q.before !== undefined ? seqOf(q.before) : undefined;
    const limit = clampLimit(q.limit);
    let sql = ` FROM ${table} WHERE ${where}`;
    const args = [...params];
    if (lo !== undefined) {
      sql += ' AND seq > ?';
      args.push(lo);
    }
    if (hi !== undefined) {
      sql += ' AND seq < ?';
      args.push(hi);
    }
    args.push(limit + 1);
    // Oldest `limit` newer than `after` (everything up to `after` is older), else the newest
    // `limit` (older than `before`, if given): a row beyond them is the only older one.
    const order = `${sql} ORDER BY seq ${lo !== undefined ? 'ASC' : 'DESC'} LIMIT ?`;
    const rows = this.withPrefetch(table, order, args, () => this.db.bodies<T>(`SELECT body${order}`, args));
    if (lo !== undefined) return { items: rows.slice(0, limit), has_more: rows.length > limit, has_older: true };
    const more = rows.length > limit;
    return { items: rows.slice(0, limit).reverse(), has_more: more, has_older: more };
  }

  /**
   * Runs `read` with the pages of the rows it will read fetched ahead: the rowids come first from
   * the index alone (`SELECT seq` of the same query), for messages, the table history pages read.
   */
  private withPrefetch<T>(table: string, from: string, args: SqlValue[], read: () => T[]): T[] {
    const p = this.prefetch;
    if (!p || table !== 'messages') return read();
    p.rows(this.db.all(`SELECT seq${from}`, args).map((r) => r[0] as number));
    try {
      return read();
    } finally {
      p.release();
    }
  }

  eventsAfter(seq: number, limit: number): StoredEvent[] {
    const rows = this.db.all(
      'SELECT e.seq, e.message_id, e.body, m.body FROM events e LEFT JOIN messages m ON m.id = e.message_id ' +
        'WHERE e.seq > ? ORDER BY e.seq LIMIT ?',
      [Math.max(0, seq), clampLimit(limit)],
    );
    return rows.map((r) => {
      const event = JSON.parse(r[2] as string) as EventBody;
      if (r[1] !== null) {
        if (r[3] !== null) event.message = JSON.parse(r[3] as string) as Message;
        else delete event.message;
      }
      return { seq: Number(r[0]), event: event as ServiceEvent };
    });
  }

  count(table: 'events' | 'messages'): number {
    return Number(this.db.one(`SELECT count(*) FROM ${table}`)![0]);
  }

  /** The seq the last message row took (AUTOINCREMENT keeps it in sqlite_sequence; 0 before any). */
  lastMessageSeq(): number {
    return Number(this.db.one("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0)")![0]);
  }
}
