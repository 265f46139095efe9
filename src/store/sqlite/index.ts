// The sqlite backend: the database lives in memory (sql.js), made durable by engine/ (a journal of
// resolved batches, group-fsynced before a write resolves; checkpoints into `svc.db`: its README).
// Intents resolve against the database in the write's own tick (intents.ts), so a batch is atomic
// without locks: this process is the database's only writer.

import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '../../protocol/types.js';
import { resolveIntents } from '../intents.js';
import { LocalFeed } from '../local-feed.js';
import { LocalLeases } from '../local-leases.js';
import { type KvEffect, SqliteKv } from '../kv/sqlite.js';
import {
  StoreError,
  type BackupResult,
  type PageResult,
  type EngineReport,
  type SchemaChange,
  type SearchQuery,
  type Store,
  type StoreSnapshot,
  type StoreStats,
  type WriteOp,
  type WriteResult,
} from '../types.js';
import { giveRoomsBy } from '../event-rooms.js';
import { applyOps, type JournalOp } from './apply.js';
import { Checkpointer, type CheckpointHost } from './engine/checkpoint.js';
import { Db } from './db.js';
import { frameRecord, prepare, rememberEventJson } from './engine/frame.js';
import { engineReport, loadSql, newImage, openImage, pageSizeOf, pageTrackingProblem } from './engine/image.js';
import type { PageStepHook } from './engine/page-file.js';
import { heldImage } from './image-reads.js';
import { canTrackPages, trackPages, untrackPages, type PageTracker } from './engine/page-hook.js';
import { JournalWriter, journalPath } from './engine/journal.js';
import { SqliteQueries } from './queries.js';
import { SqliteReadMethods } from './read-methods.js';
import { Prefetch } from './engine/prefetch.js';
import { replayJournals } from './engine/recovery.js';
import { unavailable } from './engine/durable-file.js';
import { configure, emptyImage, migrate, readJournalGen, readSchema, recordedParts, SCHEMA_VERSION } from './schema.js';
import { VERSION } from '../../version.js';
import { Turn, messageOf, type Batch, type TurnWrite } from './engine/turn.js';
import { copyStore } from './engine/backup.js';
import { searchPage } from './search.js';
import { ALL_PARTS } from '../concerns.js';
import { startSearchIndex, type SearchIndex } from './search-index.js';
import { ScrubCheckpoint } from './scrub.js';
import { lastEventSeq, purgedEvents } from './retention.js';
import { DEFAULT_CHECKPOINT_BYTES, DEFAULT_WORKER_CHECKPOINT_BYTES, type SqliteStoreOptions } from './options.js';

export type { SqliteStoreOptions } from './options.js';

/** Opens (creating, migrating and replaying as needed) the sqlite store at `opts.path`. */
export async function openSqliteStore(opts: SqliteStoreOptions): Promise<SqliteStore> {
  return SqliteStore.open(opts);
}

export class SqliteStore extends SqliteReadMethods implements Store, CheckpointHost {
  readonly backend = 'sqlite';
  feed: LocalFeed;
  readonly leases = new LocalLeases();
  readonly kv = new SqliteKv(this);
  schemaChange?: SchemaChange;
  engine?: EngineReport;
  readonly journal: JournalWriter;
  private readonly turn: Turn;
  private readonly checkpointer: Checkpointer;
  private search: SearchIndex | undefined;
  private readonly scrub: ScrubCheckpoint;
  /** The seq the last message row took (AUTOINCREMENT: never given again): a write knows its rows' seqs. Read again after a rollback. */
  private messageSeq = 0;
  private lastSeq = 0;
  private messageCount = 0;
  writes = 0;
  dirty = false;
  pages: PageTracker | undefined;
  closed = false;
  private closing: Promise<void> | undefined;

  private constructor(
    db: Db,
    readonly file: string,
    /** The journal generation the database's records end at: appends go there. */
    public gen: number,
    private readonly opts: SqliteStoreOptions,
    dbBytes: number,
  ) {
    super(db, new SqliteQueries(db), [...(opts.parts ?? ALL_PARTS)]);
    this.journal = new JournalWriter(opts.faults);
    this.turn = new Turn(
      db,
      this.parts,
      (m) => this.log(m),
      () => this.rolledBack(),
      () => this.journal.syncing,
      () => this.journal.flush(),
      (writes) => this.undone(writes),
    );
    this.journal.beforeSync = () => this.turn.commit();
    this.checkpointer = new Checkpointer(
      this,
      opts.checkpointBytes ?? DEFAULT_CHECKPOINT_BYTES,
      opts.workerCheckpointBytes ?? DEFAULT_WORKER_CHECKPOINT_BYTES,
      dbBytes,
      opts.checkpointCopyBatch,
    );
    this.feed = new LocalFeed((after, limit) => this.eventsAfter(after, limit), 0);
    this.scrub = new ScrubCheckpoint(this, this.checkpointer);
  }

  log(msg: string): void {
    this.opts.log?.(msg);
  }

  get pageStep(): PageStepHook | undefined {
    return this.opts.pageStep;
  }

  commitTurn(): void {
    this.turn.commit();
  }

  /** See openSqliteStore. */
  static async open(opts: SqliteStoreOptions): Promise<SqliteStore> {
    const SQL = await loadSql();
    const file = path.resolve(opts.path);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    // With page tracking the file is read on demand (page-hook.ts); without, it is loaded whole.
    const track = opts.pageTracking !== false && canTrackPages();
    const opened = await openImage(file, track);
    // A new store starts from a migrated empty image in memory, so it too has headroom: sql.js grows
    // a full in-memory file by copying it, at a cost per commit that grows with each write.
    const asked = opts.parts ?? ALL_PARTS;
    const fresh = track && !opened ? emptyImage(SQL, asked) : undefined;
    const db = new Db(new SQL.Database(opened?.data ?? (fresh ? newImage(fresh) : null)));
    // Tracked before sqlite first touches the file: it holds `svc.db` as read (or zeros read
    // through from it), plus headroom.
    const pageSize = opened?.pageSize ?? pageSizeOf(fresh ?? new Uint8Array(0));
    const base = opened?.kind === 'lazy' ? { fd: opened.fd, size: opened.size } : undefined;
    const pages = track ? trackPages(db.raw, pageSize, base) : undefined;
    // Nothing of a new image is on disk: every page of it is a change for the first checkpoint.
    if (fresh) pages?.changed(fresh.length / pageSize);
    if (!track && opts.pageTracking !== false)
      opts.log?.(`store: checkpoints write the whole database (${pageTrackingProblem() ?? 'no page tracking'})`);
    let store: SqliteStore;
    try {
      configure(db.raw);
      // The parts asked for, and those whose tables the database already holds (their effects may
      // be in the journal: a store keeps applying what it holds).
      const held = recordedParts(db.raw);
      const parts = ALL_PARTS.filter((p) => asked.includes(p) || held.has(p.name));
      const before = readSchema(db.raw).version;
      if (opened && before > 0 && before < SCHEMA_VERSION) {
        opts.log?.(
          `store: migrating ${file} from schema version ${before} to ${SCHEMA_VERSION}; an older svc cannot open it afterwards (keep a copy from before the upgrade: svc store copy)`,
        );
      }
      const migrated = migrate(db.raw, file, parts);
      store = new SqliteStore(db, file, readJournalGen(db.raw), { ...opts, parts }, opened?.size ?? 0);
      if (opened && migrated.core && before > 0) store.schemaChange = { from: before, to: SCHEMA_VERSION, by: VERSION };
      store.pages = pages;
      // Pages read on demand: history pages read their rows' leaf pages ahead, in runs.
      if (pages?.base) store.reads.prefetch = new Prefetch(pages, () => store.rootPage('messages'));
      store.engine = engineReport(pages !== undefined, base !== undefined || (pages !== undefined && !opened), opts.pageTracking === false);
      store.dirty = migrated.core || migrated.parts || !opened;
      const r = await replayJournals(db, file, store.gen, (m) => store.log(m), store.parts);
      if (r.replayed) store.dirty = true;
      store.gen = r.appendGen;
      store.journal.switchTo(r.appendGen, journalPath(file, r.appendGen), r.appendSize);
      // The last seq less what purges took is the events' count (stats): no count(*) of 1M rows.
      store.lastSeq = lastEventSeq(db);
      store.messageCount = store.reads.count('messages');
      store.messageSeq = store.reads.lastMessageSeq();
      store.feed = new LocalFeed((after, limit) => store.eventsAfter(after, limit), store.lastSeq);
      store.search = startSearchIndex(db, file, store.messageSeq, (m) => store.log(m), store.scrub);
    } catch (err) {
      untrackPages(db.raw);
      db.close();
      if (err instanceof StoreError) throw err;
      throw new StoreError('corrupt', `cannot open ${file}: ${messageOf(err)}`);
    }
    return store;
  }

  // ---- writes ----

  async write(ops: WriteOp[]): Promise<WriteResult> {
    if (this.closed) throw new StoreError('unavailable', 'store is closed');
    if (ops.length === 0) return { outcomes: [], events: [] };
    this.turn.open();
    // What this write read or wrote stands or falls with its turn's journal write (turn.ts).
    const batch = this.turn.batch;
    const { effects, outcomes } = resolveIntents(this.reads, ops, this.partStates);
    if (effects.length === 0) {
      // Nothing new (a retry, a claim already held): answer once what was read is durable.
      await this.durable();
      if (batch.failed) throw batch.failed;
      return { outcomes, events: [] };
    }
    const { jops, bodies, messageJson, events, messages } = prepare(effects, this.lastSeq, (id) => this.reads.messageJson(id));
    this.reads.forget(jops);
    this.cuts.purging(jops);
    this.journalAndApply(jops, bodies);
    // A purge's COMMIT (page faults all over the file: docs/retention.md) is timed with its write.
    if (jops.some((op) => op.op === 'message.purge')) this.turn.commit();
    const firstSeq = this.messageSeq;
    for (const op of jops) {
      if (op.op === 'message.insert') this.messageSeq++;
      else if (op.op === 'message.purge') this.messageCount--;
    }
    rememberEventJson(effects, bodies, messageJson);
    this.lastSeq += events.length;
    this.messageCount += messages;
    // A reader woken now joins this group commit with a write of its own (EventFeed.onWritten).
    if (events.length > 0) this.feed.applied(this.lastSeq);
    await this.settle(batch);
    // Durable: the search worker may index it (search-index.ts).
    this.search?.written(jops, bodies, firstSeq);
    // With no room changed, its room as cached now is the one the events were committed in.
    if (!jops.some((op) => op.op === 'room.put')) giveRoomsBy((id) => this.reads.room(id), events);
    this.feed.publish(events);
    return { outcomes, events };
  }

  /** Journals and applies kv effects (kv/sqlite.ts), applied before this returns its promise. */
  async writeEffects(effects: KvEffect[]): Promise<void> {
    if (this.closed) throw new StoreError('unavailable', 'store is closed');
    this.turn.open();
    // These effects stand or fall with their turn's journal write, as a write's do (turn.ts).
    const batch = this.turn.batch;
    this.journalAndApply(effects, Array<undefined>(effects.length).fill(undefined));
    await this.settle(batch);
  }

  /**
   * Encodes `jops` as the turn's next journal record and applies them to the database, the rows
   * taking their bodies' bytes from it. A failure abandons the record and undoes the batch.
   */
  private journalAndApply(jops: JournalOp[], bodies: (string | undefined)[]): void {
    const frame = this.journal.frame;
    const ranges = frameRecord(frame, jops, bodies);
    const ran = this.db.statements;
    try {
      applyOps(this.db.run, jops, this.parts, (i) => (ranges[2 * i]! >= 0 ? frame.bytes(ranges[2 * i]!, ranges[2 * i + 1]!) : undefined));
    } catch (err) {
      frame.abandon();
      // A batch whose first statement failed changed nothing (sqlite undoes a failed statement).
      if (this.db.statements !== ran) this.turn.undoLast();
      if (err instanceof StoreError) throw err;
      if (/UNIQUE constraint failed/.test(messageOf(err))) throw new StoreError('conflict', messageOf(err));
      throw new StoreError('unavailable', `write failed: ${messageOf(err)}`);
    }
    frame.finish();
    this.turn.applied(jops, bodies);
  }

  /** Counts an applied batch, then answers once its turn is durable, or throws what undid it. */
  private async settle(batch: Batch): Promise<void> {
    this.dirty = true;
    this.writes += 1;
    this.checkpointer.maybe();
    await this.durable();
    // The turn's records could not be written: it was rolled back (undone below).
    if (batch.failed) throw batch.failed;
    // The turn's COMMIT failed: the database no longer holds this write (the journal does).
    if (this.turn.broken) throw this.turn.broken;
  }

  /** After a rollback: what reads cached may be gone, and the next message seq is the database's again. */
  private rolledBack(): void {
    this.reads.forgetAll();
    this.cuts.clear();
    try {
      this.messageSeq = this.reads.lastMessageSeq();
    } catch {
      // Only a broken store gets here: no write follows.
    }
  }

  /** Forgets what a turn rolled back by its failed journal write had counted (its seqs are the last given). */
  private undone(writes: TurnWrite[]): void {
    for (const w of writes) {
      for (const op of w.jops) {
        if (op.op === 'event.append') this.lastSeq--;
        else if (op.op === 'message.purge') this.messageCount++;
        else if (op.op === 'message.insert') this.messageCount--;
      }
    }
    // Readers woken by a write may have read what it applied (EventFeed.rollbacks).
    this.feed.rolledBack();
  }

  /** Whether a redaction's scrub is still under way (the search file rebuilt, the checkpoint). */
  scrubPending(): boolean {
    return (this.search?.rebuilding ?? false) || this.scrub.pending();
  }

  searchRebuilding(): boolean {
    return this.search?.rebuilding ?? false;
  }

  dataBytes(): number {
    const pages = Number(this.db.one('PRAGMA page_count')?.[0]) * Number(this.db.one('PRAGMA page_size')?.[0]);
    return pages + (this.search?.fileBytes() ?? 0);
  }

  /** The age of the oldest acknowledged message search cannot find yet, in seconds. */
  searchIndexLag(): number {
    return this.search?.lagSeconds() ?? 0;
  }

  // Not `sync`, which write-health.ts wraps on the instance: a write's own wait is no write itself.
  private async durable(): Promise<void> {
    try {
      await this.journal.sync();
    } catch (err) {
      this.log(`store: journal fsync failed: ${messageOf(err)}`);
      throw unavailable(err);
    }
  }

  sync(): Promise<void> {
    return this.durable();
  }

  // ---- lifecycle, and the online backup (Store.backup: copied with checkpoints held off, engine/backup.ts) ----
  backup(dir: string, meta: Record<string, unknown>): Promise<BackupResult> {
    const settle = () => {
      this.turn.commit();
      return this.lastSeq;
    };
    return this.checkpointer.hold(() => copyStore({ file: this.file, journalEnd: (g) => this.journal.endOf(g), settle }, dir, meta));
  }

  /** An export's state: `svc.db` just checkpointed, unwritten while held (read apart: src/export/). */
  snapshot<T>(work: (s: StoreSnapshot) => Promise<T>): Promise<T> {
    return this.checkpointer.hold(async () => work(heldImage(this.file, this.partNames)));
  }

  async ping(): Promise<boolean> {
    if (this.closed || this.turn.broken) return false;
    try {
      return this.db.one('SELECT 1')?.[0] === 1;
    } catch {
      return false;
    }
  }

  async stats(): Promise<StoreStats> {
    return {
      backend: 'sqlite',
      messages: this.messageCount,
      events: this.lastSeq - purgedEvents(this.db),
      last_event_seq: this.lastSeq,
      journal_bytes: this.journal.totalBytes,
      db_bytes: this.checkpointer.dbBytes,
      checkpoints: this.checkpointer.count,
    };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.turn.commit();
    await this.search?.close();
    await this.checkpointer.running;
    try {
      await this.journal.sync();
    } catch (err) {
      this.log(`store: journal fsync failed at close: ${messageOf(err)}`);
    }
    if (this.dirty) {
      try {
        await this.checkpointer.run(true);
      } catch (err) {
        this.log(`store: checkpoint at close failed (the journal keeps every write): ${messageOf(err)}`);
      }
    }
    await this.journal.close();
    untrackPages(this.db.raw);
    this.db.close();
  }

  // ---- reads (the rest: read-methods.ts) ----

  async searchMessages(q: SearchQuery): Promise<PageResult<Message>> {
    const search = this.search;
    if (!search || this.closed) throw new StoreError('unavailable', 'store is closed');
    return searchPage(this.db, (c) => search.candidates(c), q);
  }

  async lastEventSeq(): Promise<number> {
    return this.lastSeq;
  }
}
