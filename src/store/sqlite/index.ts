// The sqlite backend: the whole database lives in memory (sql.js); durability comes from a logical
// journal of write batches (journal.ts), group-fsynced before a write resolves, and from background
// checkpoints that export the database to `svc.db` and retire the journal generations it covers.
// The memory backend defines what each op means; this file mirrors it in SQL.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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
import { applyOps, type EventBody, type JournalOp, type JournalRecord } from './apply.js';
import type { CheckpointJob, CheckpointReply } from './checkpoint-worker.js';

export interface SqliteStoreOptions {
  /** The database file (`svc.db`); journals sit beside it as `<path>.journal.<gen>`. */
  path: string;
  /** Journal size that triggers a background checkpoint (default 64 MiB). */
  checkpointBytes?: number;
  /**
   * Database size from which checkpoints run in a worker thread (default 32 MiB, where the
   * export would stall the main thread for ~50 ms); smaller ones export in place.
   */
  workerCheckpointBytes?: number;
  log?: (msg: string) => void;
  /** Test hooks that make journal writes or fsyncs fail. */
  faults?: JournalFaults;
}

const DEFAULT_CHECKPOINT_BYTES = 64 * 1024 * 1024;
const DEFAULT_WORKER_CHECKPOINT_BYTES = 32 * 1024 * 1024;

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

/** Free space given to an opened database image: a quarter of its size, at least 16 MiB. */
const HEADROOM_FRACTION = 0.25;
const MIN_HEADROOM = 16 * 1024 * 1024;

/**
 * Reads the database file followed by zeroed headroom. sql.js keeps the file in a typed array
 * that grows by 12.5% with a copy of the whole file (two seconds of stall at a million messages);
 * SQLite trusts the page count in a valid header, so new pages land in the headroom and the array
 * is not copied until it is used up. Only a file whose header count is valid and exact is padded.
 */
async function readImage(file: string): Promise<{ data: Buffer; size: number } | undefined> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(100);
    if (size >= 100) await fh.read(head, 0, 100, 0);
    const data = Buffer.alloc(size + headroomFor(head, size));
    let at = 0;
    while (at < size) {
      const { bytesRead } = await fh.read(data, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { data, size: at };
  } finally {
    await fh.close();
  }
}

/** Bytes of headroom for a database file of `size` bytes with this header (0: not padded). */
export function headroomFor(head: Buffer, size: number): number {
  if (size < 100 || head.length < 100) return 0;
  const pageSize = head.readUInt16BE(16) === 1 ? 65536 : head.readUInt16BE(16);
  const pages = head.readUInt32BE(28);
  const valid = pageSize >= 512 && pages > 0 && head.readUInt32BE(24) === head.readUInt32BE(92) && pages * pageSize === size;
  if (!valid) return 0;
  return Math.ceil(Math.max(MIN_HEADROOM, size * HEADROOM_FRACTION) / pageSize) * pageSize;
}

/** Starts the worker thread that writes one checkpoint (checkpoint-worker.ts). */
function checkpointWorker(job: CheckpointJob): Worker {
  if (import.meta.url.endsWith('.ts')) {
    // Run from source (tests, bench tools under tsx): a worker does not inherit the TypeScript
    // loader, so it registers it before importing the entry.
    const api = import.meta.resolve('tsx/esm/api');
    const entry = new URL('./checkpoint-worker.ts', import.meta.url).href;
    const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
    return new Worker(code, { eval: true, workerData: job });
  }
  return new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: job });
}

/** Clamps a page size to what both backends treat alike and SQLite's LIMIT accepts. */
function clampLimit(n: number): number {
  if (!(n > 0)) return 0;
  return Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER - 1);
}

export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  private readonly stmts = new Map<string, Statement>();
  /** JSON of messages being written, computed once for both the row and the journal record. */
  private readonly messageJson = new WeakMap<Message, string>();
  private readonly journal: JournalWriter;
  private readonly log: (msg: string) => void;
  private readonly checkpointBytes: number;
  private lastSeq = 0;
  private messageCount = 0;
  private eventCount = 0;
  private dbBytes = 0;
  /** Writes committed since open (tells whether a worker checkpoint covered everything). */
  private writes = 0;
  private readonly workerBytes: number;
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
    this.workerBytes = opts.workerCheckpointBytes ?? DEFAULT_WORKER_CHECKPOINT_BYTES;
    this.journal = new JournalWriter(opts.faults);
  }

  /** See openSqliteStore. */
  static async open(opts: SqliteStoreOptions): Promise<SqliteStore> {
    const SQL = await loadSql();
    const file = path.resolve(opts.path);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const image = await readImage(file);
    const db = image ? new SQL.Database(image.data) : new SQL.Database();
    let store: SqliteStore;
    try {
      configure(db);
      const migrated = migrate(db);
      store = new SqliteStore(db, file, readJournalGen(db), opts);
      store.dirty = migrated || !image;
      store.dbBytes = image?.size ?? 0;
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
      this.replayAll(d.records, j.path);
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

  /**
   * Replays one journal file's records. Any failure makes the whole open fail (corrupt), so the
   * records can share transactions: one commit per thousand records instead of one each, which
   * is most of the replay time.
   */
  private replayAll(records: unknown[], file: string): void {
    const CHUNK = 1000;
    for (let start = 0; start < records.length; start += CHUNK) {
      this.run('BEGIN');
      let i = start;
      try {
        for (; i < Math.min(records.length, start + CHUNK); i++) {
          const ops = (records[i] as Partial<JournalRecord> | null)?.ops;
          if (!Array.isArray(ops)) throw new Error('not a write batch');
          this.applyOps(ops);
        }
        this.run('COMMIT');
      } catch (err) {
        this.run('ROLLBACK');
        throw new StoreError('corrupt', `${file} record ${i + 1}: ${messageOf(err)}`);
      }
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

  private readonly runner = (sql: string, params?: SqlValue[]): void => this.run(sql, params);

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
    // Prepared (cached) transaction statements: db.run would parse the SQL on every write.
    this.run('BEGIN');
    try {
      this.applyOps(jops);
    } catch (err) {
      this.run('ROLLBACK');
      if (err instanceof StoreError) throw err;
      if (/UNIQUE constraint failed/.test(messageOf(err))) throw new StoreError('conflict', messageOf(err));
      throw new StoreError('unavailable', `write failed: ${messageOf(err)}`);
    }
    let bytes: number;
    try {
      bytes = this.journal.append(this.recordJson(jops));
    } catch (err) {
      // Never acknowledge (or keep visible) what did not reach the journal.
      this.run('ROLLBACK');
      this.log(`store: journal append failed: ${messageOf(err)}`);
      throw unavailable(err);
    }
    try {
      this.run('COMMIT');
    } catch (err) {
      this.run('ROLLBACK');
      this.journal.unappend(bytes);
      throw new StoreError('unavailable', `write failed: ${messageOf(err)}`);
    }
    this.lastSeq += event_seqs.length;
    this.eventCount += event_seqs.length;
    this.messageCount += messages;
    this.dirty = true;
    this.writes += 1;
    this.maybeCheckpoint();
    await this.durable();
    return { event_seqs };
  }

  /** Checks conflicts like the memory backend, assigns event seqs and turns event messages into references. */
  private normalize(ops: WriteOp[]): { jops: JournalOp[]; event_seqs: number[]; messages: number } {
    // A duplicate message id is caught by the UNIQUE index when the batch is applied (write()
    // turns it into `conflict` and rolls the whole batch back): no lookup per message here.
    const inserted = new Map<string, { message: Message; json: string }>();
    const event_seqs: number[] = [];
    const jops = ops.map((op): JournalOp => {
      if (op.op === 'message.insert') {
        const json = JSON.stringify(op.record.message);
        inserted.set(op.record.message.id, { message: op.record.message, json });
        this.messageJson.set(op.record.message, json);
        return op;
      }
      if (op.op !== 'event.append') return op;
      const seq = this.lastSeq + event_seqs.length + 1;
      event_seqs.push(seq);
      const m = op.event.message;
      if (m) {
        // Only a message identical to the stored one is kept by reference, so reads give back
        // exactly the event that was appended (the very object inserted in this batch is).
        const ins = inserted.get(m.id);
        if (ins?.message === m) return { op: 'event.append', seq, event: { ...op.event, message: null }, message_id: m.id };
        const stored = ins?.json ?? (this.one('SELECT body FROM messages WHERE id = ?', [m.id])?.[0] as string);
        if (stored === JSON.stringify(m)) {
          return { op: 'event.append', seq, event: { ...op.event, message: null }, message_id: m.id };
        }
      }
      return { op: 'event.append', seq, event: op.event };
    });
    return { jops, event_seqs, messages: inserted.size };
  }

  /** The journal record of a batch: `JSON.stringify({ops})`, reusing each message's JSON. */
  private recordJson(jops: JournalOp[]): string {
    const parts = jops.map((op) => {
      if (op.op !== 'message.insert') return JSON.stringify(op);
      const r = op.record;
      const m = this.messageJson.get(r.message) ?? JSON.stringify(r.message);
      return `{"op":"message.insert","record":{"message":${m},"conv":${JSON.stringify(r.conv)},"event_id":${JSON.stringify(r.event_id)}}}`;
    });
    return `{"ops":[${parts.join(',')}]}`;
  }

  private applyOps(ops: JournalOp[]): void {
    applyOps(this.runner, ops, (m) => this.messageJson.get(m));
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
        // The journal may have outgrown the threshold again while this one ran.
        this.maybeCheckpoint();
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
    if (!final && this.liveBytes() >= this.workerBytes) return this.checkpointInWorker(prev, next);
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

  /** Size of the in-memory database (what an export would copy). */
  private liveBytes(): number {
    const pages = Number(this.one('PRAGMA page_count')?.[0] ?? 0);
    const size = Number(this.one('PRAGMA page_size')?.[0] ?? 0);
    return pages * size;
  }

  /**
   * The checkpoint of a large database: appends move to generation `next` now, and a worker
   * thread rebuilds `svc.db` from the last one plus the generations up to `prev` (checkpoint-
   * worker.ts). The main thread keeps serving; only the worker pays the O(database) export.
   */
  private async checkpointInWorker(prev: number, next: number): Promise<void> {
    this.journal.switchTo(next, journalPath(this.file, next));
    this.gen = next;
    const writes = this.writes;
    const job: CheckpointJob = { file: this.file, upto: prev, next };
    const reply = await new Promise<CheckpointReply>((resolve) => {
      const worker = checkpointWorker(job);
      let settled = false;
      const settle = (r: CheckpointReply) => {
        if (settled) return;
        settled = true;
        resolve(r);
        void worker.terminate();
      };
      worker.once('message', (r: CheckpointReply) => settle(r));
      worker.once('error', (err) => settle({ ok: false, error: err.message }));
      worker.once('exit', (code) => settle({ ok: false, error: `checkpoint worker exited with ${code}` }));
    });
    if (!reply.ok) throw new Error(reply.error);
    // Writes made while the worker ran are only in the journal of `next`.
    if (this.writes === writes) this.dirty = false;
    this.journal.dropBefore(next);
    for (const j of listJournals(this.file)) {
      if (j.gen < next) await fs.promises.rm(j.path, { force: true });
    }
    this.dbBytes = reply.bytes;
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
