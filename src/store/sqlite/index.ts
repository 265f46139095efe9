// The sqlite backend: the whole database lives in memory (sql.js); durability comes from a logical
// journal of write batches (journal.ts), group-fsynced before a write resolves, and from background
// checkpoints that export the database to `svc.db` and retire the journal generations it covers.
// The memory backend defines what each op means; this file mirrors it in SQL.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import type { Artifact, Message, ServiceEvent } from '../../protocol/types.js';
import { UnknownCursor } from '../../protocol/pagination.js';
import {
  StoreError,
  type AgentRecord,
  type ArtifactFilter,
  type DmRecord,
  type MessageRecord,
  type PageQuery,
  type PageResult,
  type RoomRecord,
  type Store,
  type StoreStats,
  type StoredEvent,
  type ThreadRecord,
  type WriteOp,
  type WriteResult,
} from '../types.js';
import { JournalWriter, fsyncDir, journalPath, listJournals, readJournal, type JournalFaults } from './journal.js';
import { configure, migrate, readJournalGen, writeJournalGen } from './schema.js';

export interface SqliteStoreOptions {
  /** The database file (`svc.db`); journals sit beside it as `<path>.journal.<gen>`. */
  path: string;
  /** Journal size that triggers a background checkpoint (default 64 MiB). */
  checkpointBytes?: number;
  log?: (msg: string) => void;
  /** Test hooks that make journal writes or fsyncs fail. */
  faults?: JournalFaults;
}

const DEFAULT_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** An event as stored: `message` is a null placeholder (kept for key order) when `message_id` is set. */
type EventBody = Omit<ServiceEvent, 'message'> & { message?: Message | null };

/** A journaled op: a WriteOp with its event seq assigned and its event message by reference. */
type JournalOp =
  | Exclude<WriteOp, { op: 'event.append' }>
  | { op: 'event.append'; seq: number; event: EventBody; message_id?: string };

interface JournalRecord {
  ops: JournalOp[];
}

let sqlModule: Promise<SqlJsStatic> | undefined;

function loadSql(): Promise<SqlJsStatic> {
  sqlModule ??= initSqlJs({
    locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'),
  }).catch((err: unknown) => {
    sqlModule = undefined;
    throw err;
  });
  return sqlModule;
}

/** Opens (creating, migrating and replaying as needed) the sqlite store at `opts.path`. */
export async function openSqliteStore(opts: SqliteStoreOptions): Promise<SqliteStore> {
  return SqliteStore.open(opts);
}

function unavailable(err: unknown): StoreError {
  const e = err as NodeJS.ErrnoException | undefined;
  return new StoreError('unavailable', `the store cannot persist writes: ${e?.code ?? e?.message ?? String(err)}`);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Clamps a page size to what both backends treat alike and SQLite's LIMIT accepts. */
function clampLimit(n: number): number {
  if (!(n > 0)) return 0;
  return Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER - 1);
}

export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  private readonly stmts = new Map<string, Statement>();
  private readonly journal: JournalWriter;
  private readonly log: (msg: string) => void;
  private readonly checkpointBytes: number;
  private lastSeq = 0;
  private messageCount = 0;
  private eventCount = 0;
  private dbBytes = 0;
  private checkpoints = 0;
  /** The database differs from `svc.db` on disk. */
  private dirty = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private checkpointing: Promise<void> | undefined;

  private constructor(
    private readonly db: Database,
    private readonly file: string,
    /** The journal generation the database's records end at: appends go there. */
    private gen: number,
    opts: SqliteStoreOptions,
  ) {
    this.log = opts.log ?? (() => {});
    this.checkpointBytes = opts.checkpointBytes ?? DEFAULT_CHECKPOINT_BYTES;
    this.journal = new JournalWriter(opts.faults);
  }

  /** See openSqliteStore. */
  static async open(opts: SqliteStoreOptions): Promise<SqliteStore> {
    const SQL = await loadSql();
    const file = path.resolve(opts.path);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    let image: Buffer | undefined;
    try {
      image = await fs.promises.readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const db = image ? new SQL.Database(image) : new SQL.Database();
    let store: SqliteStore;
    try {
      configure(db);
      const migrated = migrate(db);
      store = new SqliteStore(db, file, readJournalGen(db), opts);
      store.dirty = migrated || !image;
      store.dbBytes = image?.length ?? 0;
      await store.recover();
    } catch (err) {
      db.close();
      if (err instanceof StoreError) throw err;
      throw new StoreError('corrupt', `cannot open ${file}: ${messageOf(err)}`);
    }
    return store;
  }

  /** Replays the journals the database file does not cover and opens the last one for appends. */
  private async recover(): Promise<void> {
    const dir = path.dirname(this.file);
    let appendGen = this.gen;
    let appendSize = 0;
    let torn = false;
    let removed = false;
    for (const j of listJournals(this.file)) {
      if (j.gen < this.gen || torn) {
        // Older generations are in the database file; anything after a torn record was never
        // acknowledged (acks wait for every earlier record) and was built on the lost record.
        if (torn) this.log(`store: dropping ${j.path}: it follows a torn journal record`);
        fs.rmSync(j.path, { force: true });
        removed = true;
        continue;
      }
      const d = readJournal(j.path);
      d.records.forEach((rec, i) => this.replay(rec, `${j.path} record ${i + 1}`));
      if (d.records.length > 0) this.dirty = true;
      appendGen = j.gen;
      appendSize = d.validBytes;
      if (d.problem) {
        torn = true;
        this.log(
          `store: ${j.path}: ${d.problem} at byte ${d.validBytes}; truncating ${d.fileBytes - d.validBytes} bytes`,
        );
      }
    }
    // Deletions must be durable before new records land in an earlier generation.
    if (removed) await fsyncDir(dir);
    this.gen = appendGen;
    this.journal.switchTo(appendGen, journalPath(this.file, appendGen), appendSize);
    this.lastSeq = Number(this.one('SELECT coalesce(max(seq), 0) FROM events')![0]);
    this.eventCount = Number(this.one('SELECT count(*) FROM events')![0]);
    this.messageCount = Number(this.one('SELECT count(*) FROM messages')![0]);
  }

  private replay(rec: unknown, where: string): void {
    const ops = (rec as Partial<JournalRecord> | null)?.ops;
    if (!Array.isArray(ops)) throw new StoreError('corrupt', `${where}: not a write batch`);
    this.db.run('BEGIN');
    try {
      this.applyOps(ops);
      this.db.run('COMMIT');
    } catch (err) {
      this.db.run('ROLLBACK');
      throw new StoreError('corrupt', `${where}: ${messageOf(err)}`);
    }
  }

  // ---- statements ----

  /** A prepared statement, cached per SQL string. */
  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private run(sql: string, params: SqlValue[] = []): void {
    const s = this.stmt(sql);
    try {
      s.bind(params);
      s.step();
    } finally {
      s.reset();
    }
  }

  private all(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const s = this.stmt(sql);
    const rows: SqlValue[][] = [];
    try {
      s.bind(params);
      while (s.step()) rows.push(s.get());
    } finally {
      s.reset();
    }
    return rows;
  }

  private one(sql: string, params: SqlValue[] = []): SqlValue[] | undefined {
    const s = this.stmt(sql);
    try {
      s.bind(params);
      return s.step() ? s.get() : undefined;
    } finally {
      s.reset();
    }
  }

  private bodies<T>(sql: string, params: SqlValue[] = []): T[] {
    return this.all(sql, params).map((r) => JSON.parse(r[0] as string) as T);
  }

  private body<T>(sql: string, params: SqlValue[]): T | undefined {
    const r = this.one(sql, params);
    return r && (JSON.parse(r[0] as string) as T);
  }

  // ---- writes ----

  async write(ops: WriteOp[]): Promise<WriteResult> {
    if (this.closed) throw new StoreError('unavailable', 'store is closed');
    if (ops.length === 0) return { event_seqs: [] };
    const { jops, event_seqs, messages } = this.normalize(ops);
    this.db.run('BEGIN');
    try {
      this.applyOps(jops);
    } catch (err) {
      this.db.run('ROLLBACK');
      if (err instanceof StoreError) throw err;
      if (/UNIQUE constraint failed/.test(messageOf(err))) throw new StoreError('conflict', messageOf(err));
      throw new StoreError('unavailable', `write failed: ${messageOf(err)}`);
    }
    let bytes: number;
    try {
      bytes = this.journal.append(JSON.stringify({ ops: jops } satisfies JournalRecord));
    } catch (err) {
      // Never acknowledge (or keep visible) what did not reach the journal.
      this.db.run('ROLLBACK');
      this.log(`store: journal append failed: ${messageOf(err)}`);
      throw unavailable(err);
    }
    try {
      this.db.run('COMMIT');
    } catch (err) {
      this.db.run('ROLLBACK');
      this.journal.unappend(bytes);
      throw new StoreError('unavailable', `write failed: ${messageOf(err)}`);
    }
    this.lastSeq += event_seqs.length;
    this.eventCount += event_seqs.length;
    this.messageCount += messages;
    this.dirty = true;
    this.maybeCheckpoint();
    await this.durable();
    return { event_seqs };
  }

  /** Checks conflicts like the memory backend, assigns event seqs and turns event messages into references. */
  private normalize(ops: WriteOp[]): { jops: JournalOp[]; event_seqs: number[]; messages: number } {
    const inserted = new Map<string, string>();
    for (const op of ops) {
      if (op.op !== 'message.insert') continue;
      const id = op.record.message.id;
      if (this.one('SELECT 1 FROM messages WHERE id = ?', [id])) {
        throw new StoreError('conflict', `message ${id} exists`);
      }
    }
    const event_seqs: number[] = [];
    const jops = ops.map((op): JournalOp => {
      if (op.op === 'message.insert') {
        inserted.set(op.record.message.id, JSON.stringify(op.record.message));
        return op;
      }
      if (op.op !== 'event.append') return op;
      const seq = this.lastSeq + event_seqs.length + 1;
      event_seqs.push(seq);
      const m = op.event.message;
      if (m) {
        // Only a message identical to the stored one is kept by reference, so reads give back
        // exactly the event that was appended.
        const stored = inserted.get(m.id) ?? (this.one('SELECT body FROM messages WHERE id = ?', [m.id])?.[0] as string);
        if (stored === JSON.stringify(m)) {
          return { op: 'event.append', seq, event: { ...op.event, message: null }, message_id: m.id };
        }
      }
      return { op: 'event.append', seq, event: op.event };
    });
    return { jops, event_seqs, messages: inserted.size };
  }

  /** Applies journal ops inside the caller's transaction (live writes and replay alike). */
  private applyOps(ops: JournalOp[]): void {
    for (const op of ops) {
      switch (op.op) {
        case 'room.put':
          this.run(
            'INSERT INTO rooms (id, removed, body) VALUES (?, ?, ?) ' +
              'ON CONFLICT (id) DO UPDATE SET removed = excluded.removed, body = excluded.body',
            [op.room.id, op.room.removed_at ? 1 : 0, JSON.stringify(op.room)],
          );
          break;
        case 'agent.put':
          this.run(
            'INSERT INTO agents (id, credential_key, body) VALUES (?, ?, ?) ' +
              'ON CONFLICT (id) DO UPDATE SET credential_key = excluded.credential_key, body = excluded.body',
            [op.agent.id, op.agent.credential_key, JSON.stringify(op.agent)],
          );
          break;
        case 'agent.delete':
          this.run('DELETE FROM agents WHERE id = ?', [op.id]);
          break;
        case 'message.insert': {
          const r = op.record;
          this.run('INSERT INTO messages (id, conv, event_id, body) VALUES (?, ?, ?, ?)', [
            r.message.id,
            r.conv,
            r.event_id,
            JSON.stringify(r.message),
          ]);
          break;
        }
        case 'thread.put':
          this.run(
            'INSERT INTO threads (id, room_id, body) VALUES (?, ?, ?) ' +
              'ON CONFLICT (id) DO UPDATE SET room_id = excluded.room_id, body = excluded.body',
            [op.thread.id, op.thread.room_id, JSON.stringify(op.thread)],
          );
          break;
        case 'dm.put':
          this.run('INSERT INTO dms (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body', [
            op.dm.id,
            JSON.stringify(op.dm),
          ]);
          break;
        case 'artifact.insert': {
          const a = op.artifact;
          const t = a.target;
          this.run(
            'INSERT INTO artifacts (id, target_kind, room_id, thread_id, dm_id, body) VALUES (?, ?, ?, ?, ?, ?)',
            [
              a.id,
              t.kind,
              t.kind === 'dm' ? null : (t.room_id ?? null),
              t.kind === 'thread' ? (t.thread_id ?? null) : null,
              t.kind === 'dm' ? (t.dm_id ?? null) : null,
              JSON.stringify(a),
            ],
          );
          break;
        }
        case 'event.append':
          this.run('INSERT INTO events (seq, message_id, body) VALUES (?, ?, ?)', [
            op.seq,
            op.message_id ?? null,
            JSON.stringify(op.event),
          ]);
          break;
        default:
          throw new StoreError('corrupt', `unknown write op ${JSON.stringify((op as { op?: unknown }).op)}`);
      }
    }
  }

  private async durable(): Promise<void> {
    try {
      await this.journal.sync();
    } catch (err) {
      this.log(`store: journal fsync failed: ${messageOf(err)}`);
      throw unavailable(err);
    }
  }

  async sync(): Promise<void> {
    await this.durable();
  }

  // ---- checkpoints ----

  private maybeCheckpoint(): void {
    if (this.checkpointing || this.closed || this.journal.currentBytes < this.checkpointBytes) return;
    this.checkpointing = this.checkpoint(false)
      .catch((err: unknown) => this.log(`store: checkpoint failed (the journal keeps every write): ${messageOf(err)}`))
      .finally(() => {
        this.checkpointing = undefined;
      });
  }

  /**
   * Snapshots the database into `svc.db` and deletes the journals it covers. The snapshot and the
   * switch of appends to the next generation happen in one tick, so every record is either in the
   * snapshot or in a journal the snapshot's `journal_gen` says to replay. `final` (close) keeps the
   * current journal file, as no write follows.
   */
  private async checkpoint(final: boolean): Promise<void> {
    await this.journal.idle();
    const prev = this.gen;
    const next = prev + 1;
    writeJournalGen(this.db, next);
    if (!final) {
      try {
        this.journal.switchTo(next, journalPath(this.file, next));
      } catch (err) {
        writeJournalGen(this.db, prev);
        throw err;
      }
    }
    this.gen = next;
    const image = this.db.export();
    this.dirty = false;
    try {
      const tmp = `${this.file}.tmp`;
      const fh = await fs.promises.open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(image);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await fs.promises.rename(tmp, this.file);
      await fsyncDir(path.dirname(this.file));
    } catch (err) {
      this.dirty = true;
      throw err;
    }
    this.journal.dropBefore(next);
    for (const j of listJournals(this.file)) {
      if (j.gen < next) await fs.promises.rm(j.path, { force: true });
    }
    this.dbBytes = image.length;
    this.checkpoints += 1;
  }

  // ---- lifecycle ----

  ping(): boolean {
    if (this.closed) return false;
    try {
      return this.one('SELECT 1')?.[0] === 1;
    } catch {
      return false;
    }
  }

  stats(): StoreStats {
    return {
      backend: 'sqlite',
      messages: this.messageCount,
      events: this.eventCount,
      last_event_seq: this.lastSeq,
      journal_bytes: this.journal.totalBytes,
      db_bytes: this.dbBytes,
      checkpoints: this.checkpoints,
    };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    await this.checkpointing;
    try {
      await this.journal.sync();
    } catch (err) {
      this.log(`store: journal fsync failed at close: ${messageOf(err)}`);
    }
    if (this.dirty) {
      try {
        await this.checkpoint(true);
      } catch (err) {
        this.log(`store: checkpoint at close failed (the journal keeps every write): ${messageOf(err)}`);
      }
    }
    await this.journal.close();
    for (const s of this.stmts.values()) s.free();
    this.stmts.clear();
    this.db.close();
  }

  // ---- reads ----

  getRoom(id: string): RoomRecord | undefined {
    return this.body('SELECT body FROM rooms WHERE id = ?', [id]);
  }

  listRooms(): RoomRecord[] {
    return this.bodies('SELECT body FROM rooms WHERE removed = 0 ORDER BY seq');
  }

  getAgent(id: string): AgentRecord | undefined {
    return this.body('SELECT body FROM agents WHERE id = ?', [id]);
  }

  listAgents(): AgentRecord[] {
    return this.bodies('SELECT body FROM agents ORDER BY seq');
  }

  findAgentsByCredential(credentialKey: string): AgentRecord[] {
    return this.bodies('SELECT body FROM agents WHERE credential_key = ? ORDER BY seq', [credentialKey]);
  }

  getMessage(id: string): MessageRecord | undefined {
    const r = this.one('SELECT body, conv, event_id FROM messages WHERE id = ?', [id]);
    return r && { message: JSON.parse(r[0] as string) as Message, conv: r[1] as string, event_id: r[2] as string };
  }

  listMessages(conv: string, q: PageQuery): PageResult<Message> {
    return this.page('messages', 'conv = ?', [conv], q);
  }

  getThread(id: string): ThreadRecord | undefined {
    return this.body('SELECT body FROM threads WHERE id = ?', [id]);
  }

  listThreads(roomId: string, q: PageQuery): PageResult<ThreadRecord> {
    return this.page('threads', 'room_id = ?', [roomId], q);
  }

  getDm(id: string): DmRecord | undefined {
    return this.body('SELECT body FROM dms WHERE id = ?', [id]);
  }

  listDms(): DmRecord[] {
    return this.bodies('SELECT body FROM dms ORDER BY seq');
  }

  listArtifacts(filter: ArtifactFilter, q: PageQuery): PageResult<Artifact> {
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
      const r = this.one(`SELECT seq FROM ${table} WHERE id = ? AND ${where} ORDER BY seq LIMIT 1`, [cursor, ...params]);
      if (!r) throw new StoreError('unknown_cursor', new UnknownCursor(cursor).message);
      return Number(r[0]);
    };
    const lo = q.after !== undefined ? seqOf(q.after) : undefined;
    const hi = q.before !== undefined ? seqOf(q.before) : undefined;
    const limit = clampLimit(q.limit);
    let sql = `SELECT body FROM ${table} WHERE ${where}`;
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
    if (lo !== undefined) {
      // Oldest `limit` newer than `after`; everything up to `after` is older.
      const rows = this.bodies<T>(`${sql} ORDER BY seq ASC LIMIT ?`, args);
      return { items: rows.slice(0, limit), has_more: rows.length > limit, has_older: true };
    }
    // Newest `limit` (older than `before`, if given); a row beyond them is the only older one.
    const rows = this.bodies<T>(`${sql} ORDER BY seq DESC LIMIT ?`, args);
    const more = rows.length > limit;
    return { items: rows.slice(0, limit).reverse(), has_more: more, has_older: more };
  }

  eventsAfter(seq: number, limit: number): StoredEvent[] {
    const rows = this.all(
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

  lastEventSeq(): number {
    return this.lastSeq;
  }
}
