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
import { rememberJson } from '../../protocol/json-cache.js';
import {
  StoreError,
  type AgentRecord,
  type ArtifactFilter,
  type DmRecord,
  type MessageRecord,
  type PageQuery,
  type PageResult,
  type RoomRecord,
  type SearchQuery,
  type Store,
  type StoreStats,
  type StoredEvent,
  type ThreadRecord,
  type WriteOp,
  type WriteResult,
} from '../types.js';
import { FrameBuilder, JournalWriter, fsyncDir, journalPath, listJournals, readJournal, type JournalFaults } from './journal.js';
import { configure, migrate, readJournalGen, writeJournalGen } from './schema.js';
import { applyOps, type EventBody, type JournalOp, type JournalRecord } from './apply.js';
import type { CheckpointJob, CheckpointReply } from './checkpoint-worker.js';
import { searchPage } from './search.js';

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

/** A batch ready to apply and journal: seqs assigned, and each body serialized once (by op index). */
interface Prepared {
  jops: JournalOp[];
  /** The JSON of op i's message (insert) or event (append); undefined for other ops. */
  bodies: (string | undefined)[];
  /** For an event append whose message is kept by reference: that message's JSON. */
  messageJson: (string | undefined)[];
  event_seqs: number[];
  messages: number;
}

const DEFAULT_CHECKPOINT_BYTES = 64 * 1024 * 1024;
/** Most room or agent bodies kept in memory by id. */
const READ_CACHE_MAX = 4096;
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
  /**
   * Room and agent bodies by id (null: no such row), read on every message send. Entries are
   * dropped before any write that touches their id, so a rolled-back write leaves no trace.
   */
  private readonly roomBodies = new Map<string, string | null>();
  private readonly agentBodies = new Map<string, string | null>();
  private readonly journal: JournalWriter;
  private readonly frame = new FrameBuilder();
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
  /** The turn's transaction is open (see openTurn). */
  private turnOpen = false;
  /** The writes applied in the open turn, oldest first. */
  private turn: { jops: JournalOp[]; bodies: (string | undefined)[] }[] = [];
  /** Statements run successfully since open (tells whether a failed batch changed anything). */
  private statements = 0;
  /** Set for good when a turn's COMMIT failed. */
  private broken: StoreError | undefined;

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
      this.statements++;
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

  /** A row body by id through `cache`; every call parses, so callers never share an object. */
  private cachedBody<T>(cache: Map<string, string | null>, sql: string, id: string): T | undefined {
    let json = cache.get(id);
    if (json === undefined) {
      json = (this.one(sql, [id])?.[0] as string | undefined) ?? null;
      // Lookups of ids that do not exist are cached too; the bound keeps that from growing.
      if (cache.size >= READ_CACHE_MAX) cache.clear();
      cache.set(id, json);
    }
    return json === null ? undefined : (JSON.parse(json) as T);
  }

  // ---- writes ----

  async write(ops: WriteOp[]): Promise<WriteResult> {
    if (this.closed) throw new StoreError('unavailable', 'store is closed');
    if (ops.length === 0) return { event_seqs: [] };
    const { jops, bodies, messageJson, event_seqs, messages } = this.normalize(ops);
    this.forgetCached(jops);
    // Prepared (cached) statements: db.run would parse the SQL on every write.
    this.openTurn();
    // The journal record is encoded first; the rows take their bodies' bytes from it.
    const frame = this.frame;
    const ranges = frameRecord(frame, jops, bodies);
    const ran = this.statements;
    try {
      applyOps(this.runner, jops, (i) => (ranges[2 * i]! >= 0 ? frame.bytes(ranges[2 * i]!, ranges[2 * i + 1]!) : undefined));
    } catch (err) {
      // A batch whose first statement failed changed nothing (sqlite undoes a failed statement).
      if (this.statements !== ran) this.undoLast();
      if (err instanceof StoreError) throw err;
      if (/UNIQUE constraint failed/.test(messageOf(err))) throw new StoreError('conflict', messageOf(err));
      throw new StoreError('unavailable', `write failed: ${messageOf(err)}`);
    }
    try {
      this.journal.appendFrame(frame.finish());
    } catch (err) {
      // Never acknowledge (or keep visible) what did not reach the journal.
      this.undoLast();
      this.log(`store: journal append failed: ${messageOf(err)}`);
      throw unavailable(err);
    }
    this.turn.push({ jops, bodies });
    rememberEventJson(ops, bodies, messageJson);
    this.lastSeq += event_seqs.length;
    this.eventCount += event_seqs.length;
    this.messageCount += messages;
    this.dirty = true;
    this.writes += 1;
    this.maybeCheckpoint();
    await this.durable();
    // The turn's COMMIT failed: the database no longer holds this write (the journal does).
    if (this.broken) throw this.broken;
    return { event_seqs };
  }

  /**
   * Opens the transaction of this event-loop turn: every write of the turn is applied in it and
   * it is committed once, after them (a COMMIT writes each changed page to the in-memory file:
   * once per turn instead of once per write). Writes are visible to reads at once either way,
   * and durability is the journal's. A write that fails after changing the database is undone
   * by rolling the turn back and applying the turn's earlier writes again (undoLast): failures
   * are rare, and this keeps savepoints (two more statements) off every write.
   */
  private openTurn(): void {
    if (this.broken) throw this.broken;
    if (this.turnOpen) return;
    this.run('BEGIN');
    this.turnOpen = true;
    setImmediate(this.endTurn);
  }

  private readonly endTurn = (): void => this.commitTurn();

  /** Commits the turn's transaction; called at the end of the turn and before exports and close. */
  private commitTurn(): void {
    if (!this.turnOpen) return;
    this.turnOpen = false;
    this.turn = [];
    try {
      this.run('COMMIT');
    } catch (err) {
      this.fail(`the database could not commit (${messageOf(err)})`);
    }
  }

  /** Undoes the write being applied: the turn is rolled back and its earlier writes applied again. */
  private undoLast(): void {
    try {
      this.run('ROLLBACK');
      this.run('BEGIN');
      for (const b of this.turn) applyOps(this.runner, b.jops, (i) => b.bodies[i]);
    } catch (err) {
      this.turnOpen = false;
      this.turn = [];
      this.fail(`the database could not undo a failed write (${messageOf(err)})`);
    }
    // Bodies read during the turn are still right, but a failure path need not be fast.
    this.roomBodies.clear();
    this.agentBodies.clear();
  }

  /**
   * Only an exhausted memory gets here. The journal holds writes the database just lost, so no
   * later write may build on it: every write fails until a restart replays the journal.
   */
  private fail(why: string): void {
    try {
      this.run('ROLLBACK');
    } catch {
      // no transaction left to roll back
    }
    this.roomBodies.clear();
    this.agentBodies.clear();
    this.broken = new StoreError('unavailable', `${why}; restart to recover from the journal`);
    this.log(`store: ${this.broken.message}`);
  }

  /**
   * Checks conflicts like the memory backend, assigns event seqs and turns event messages into
   * references. `json` holds the body JSON of each message insert and event append, serialized
   * once for both the row and the journal record.
   */
  private normalize(ops: WriteOp[]): Prepared {
    // A duplicate message id is caught by the UNIQUE index when the batch is applied (write()
    // turns it into `conflict` and rolls the whole batch back): no lookup per message here.
    const jops: JournalOp[] = [];
    const bodies: (string | undefined)[] = [];
    const messageJson: (string | undefined)[] = [];
    const event_seqs: number[] = [];
    let messages = 0;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op.op === 'message.insert') {
        jops.push(op);
        bodies.push(JSON.stringify(op.record.message));
        messages++;
        continue;
      }
      if (op.op !== 'event.append') {
        jops.push(op);
        bodies.push(undefined);
        continue;
      }
      const seq = this.lastSeq + event_seqs.length + 1;
      event_seqs.push(seq);
      const m = op.event.message;
      let jop: JournalOp = { op: 'event.append', seq, event: op.event };
      if (m) {
        // Only a message identical to the stored one is kept by reference, so reads give back
        // exactly the event that was appended (the very object inserted in this batch is). The
        // insert that counts is the last one of that id earlier in the batch.
        let k = i - 1;
        while (k >= 0 && !(jops[k]!.op === 'message.insert' && (jops[k] as { record: { message: Message } }).record.message.id === m.id)) k--;
        const ins = k >= 0 ? (jops[k] as { record: { message: Message } }).record.message : undefined;
        const stored = ins ? bodies[k] : (this.one('SELECT body FROM messages WHERE id = ?', [m.id])?.[0] as string | undefined);
        if (ins === m || stored === JSON.stringify(m)) {
          jop = { op: 'event.append', seq, event: { ...op.event, message: null }, message_id: m.id };
          messageJson[i] = stored;
        }
      }
      jops.push(jop);
      bodies.push(JSON.stringify(jop.event));
    }
    return { jops, bodies, messageJson, event_seqs, messages };
  }

  /** Drops the cached rows a batch is about to change. */
  private forgetCached(jops: JournalOp[]): void {
    for (const op of jops) {
      if (op.op === 'room.put') this.roomBodies.delete(op.room.id);
      else if (op.op === 'agent.put') this.agentBodies.delete(op.agent.id);
      else if (op.op === 'agent.delete') this.agentBodies.delete(op.id);
    }
  }

  private applyOps(ops: JournalOp[]): void {
    this.roomBodies.clear();
    this.agentBodies.clear();
    applyOps(this.runner, ops);
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
    // The export below must see committed pages only, and the generation switch must not be
    // undone with a turn.
    this.commitTurn();
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
    this.commitTurn();
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
    return this.cachedBody(this.roomBodies, 'SELECT body FROM rooms WHERE id = ?', id);
  }

  listRooms(): RoomRecord[] {
    return this.bodies('SELECT body FROM rooms WHERE removed = 0 ORDER BY seq');
  }

  getAgent(id: string): AgentRecord | undefined {
    return this.cachedBody(this.agentBodies, 'SELECT body FROM agents WHERE id = ?', id);
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

  async searchMessages(q: SearchQuery): Promise<PageResult<Message>> {
    return searchPage((sql, params) => this.all(sql, params), q);
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

/**
 * Records the JSON of each appended event (as published: with its message) from the text already
 * made for the journal, so live streams and the replay buffer do not serialize it again.
 */
function rememberEventJson(ops: WriteOp[], bodies: (string | undefined)[], messageJson: (string | undefined)[]): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.op !== 'event.append') continue;
    const body = bodies[i]!;
    const m = messageJson[i];
    if (m === undefined) rememberJson(op.event, body);
    // `{...event, message: null}` keeps the message key where it was: the last key (newEvent's
    // order) leaves `null}` at the very end, to be replaced by the message. Else leave it be.
    else if (body.endsWith(',"message":null}')) rememberJson(op.event, `${body.slice(0, -5)}${m}}`);
  }
}

/**
 * Writes the journal record of a batch, `JSON.stringify({ops})`, into `frame`, reusing each body
 * already serialized; returns the byte range of op i's body at [2i, 2i+1] (-1 when it has none).
 */
function frameRecord(frame: FrameBuilder, jops: JournalOp[], bodies: (string | undefined)[]): number[] {
  const ranges: number[] = [];
  frame.start();
  frame.text('{"ops":[');
  for (let i = 0; i < jops.length; i++) {
    const op = jops[i]!;
    if (i > 0) frame.text(',');
    const body = bodies[i];
    if (op.op === 'message.insert' && body !== undefined) {
      const r = op.record;
      frame.text('{"op":"message.insert","record":{"message":');
      ranges.push(frame.body(body), frame.offset);
      frame.text(`,"conv":${JSON.stringify(r.conv)},"event_id":${JSON.stringify(r.event_id)}}}`);
    } else if (op.op === 'event.append' && body !== undefined) {
      frame.text(`{"op":"event.append","seq":${op.seq},"event":`);
      ranges.push(frame.body(body), frame.offset);
      frame.text(`${op.message_id !== undefined ? `,"message_id":${JSON.stringify(op.message_id)}` : ''}}`);
    } else {
      frame.text(JSON.stringify(op));
      ranges.push(-1, -1);
    }
  }
  frame.text(']}');
  return ranges;
}
