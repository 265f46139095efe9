// Checkpoints: `svc.db` brought up to the database and the journal generations it covers retired.
// Normally only the pages changed since the last checkpoint are written (page-hook.ts tracks them,
// page-file.ts writes them crash-safely, a slice per turn through one reused buffer): the cost
// follows the writes, not the database's size, and memory holds one slice of the changed pages,
// not a copy of them all. Without page tracking (an sql.js build the hook does not know) the whole
// database is written: small ones exported in place, large ones rebuilt by a worker thread from
// the last `svc.db` plus the journals (checkpoint-worker.ts).

import fs from 'node:fs';
import { startThread } from '../../../threads.js';
import type { CheckpointJob, CheckpointReply } from './checkpoint-worker.js';
import type { Db } from '../db.js';
import { journalPath, listJournals, type JournalWriter } from './journal.js';
import { SLICE, writeExport, writeTrackedPages, type PageStepHook } from './page-file.js';
import type { PageTracker } from './page-hook.js';
import { writeJournalGen } from '../schema.js';
import { messageOf } from './turn.js';

/** What the checkpointer needs of the store it serves. */
export interface CheckpointHost {
  readonly db: Db;
  readonly file: string;
  readonly journal: JournalWriter;
  /** The journal generation appends go to. */
  gen: number;
  /** The database differs from `svc.db` on disk. */
  dirty: boolean;
  /** Writes committed since open (tells whether a worker checkpoint covered everything). */
  readonly writes: number;
  /** The names of the store's parts (part.ts), for the worker. */
  readonly partNames: string[];
  /** The store is closing: no background checkpoint may start. */
  readonly closed: boolean;
  /** The pages changed since the last checkpoint (undefined: page tracking is off). */
  readonly pages: PageTracker | undefined;
  /** Test hook at each step of a checkpoint of pages. */
  readonly pageStep?: PageStepHook | undefined;
  /** Commits the open turn (the export must see committed pages only). */
  commitTurn(): void;
  log(msg: string): void;
}

export class Checkpointer {
  /** The running background checkpoint. */
  running: Promise<void> | undefined;
  count = 0;
  dbBytes: number;

  constructor(
    private readonly host: CheckpointHost,
    private readonly thresholdBytes: number,
    private readonly workerBytes: number,
    initialDbBytes: number,
    /** Pages copied and written per turn (tests make it small so that writes land between slices). */
    private readonly sliceSize = SLICE,
  ) {
    this.dbBytes = initialDbBytes;
  }

  /** Starts a background checkpoint when the journal has outgrown the threshold. */
  maybe(): void {
    if (this.running || this.host.closed || this.host.journal.currentBytes < this.thresholdBytes) return;
    this.running = this.run(false)
      .catch((err: unknown) => this.host.log(`store: checkpoint failed (the journal keeps every write): ${messageOf(err)}`))
      .finally(() => {
        this.running = undefined;
        // The journal may have outgrown the threshold again while this one ran.
        this.maybe();
      });
  }

  /**
   * Runs `work` while no checkpoint does (a backup copies `svc.db`, which only checkpoints change):
   * it waits for a running one, runs a checkpoint of its own first when the database differs from
   * `svc.db` (so the journal tail after it is short), and starts a due one after. Close waits for it.
   */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    while (this.running) await this.running;
    const h = this.host;
    const held = (async () => {
      if (h.dirty && !h.closed) {
        await this.run(false).catch((err: unknown) =>
          h.log(`store: checkpoint before a backup failed (it copies more journal): ${messageOf(err)}`),
        );
      }
      return work();
    })();
    this.running = held.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await held;
    } finally {
      this.running = undefined;
      this.maybe();
    }
  }

  /**
   * Runs a checkpoint now, changed pages or not, after a running one: a redaction's scrub, which
   * must reach `svc.db` and retire every journal generation before it (scrub.ts).
   * `before` runs just ahead of the snapshot.
   */
  async force(before: () => void): Promise<void> {
    while (this.running) await this.running;
    if (this.host.closed) return;
    before();
    // Never in the worker: the scrub is written from this database, whose freed pages
    // secure_delete zeroed; the worker rebuilds svc.db from the last one and the journals (only
    // without page tracking; an export stalls).
    const done = this.run(false, true);
    this.running = done.then(
      () => undefined,
      () => undefined,
    );
    try {
      await done;
    } finally {
      this.running = undefined;
      this.maybe();
    }
  }

  /**
   * Snapshots the database into `svc.db` and deletes the journals it covers. The snapshot and the
   * switch of appends to the next generation happen in one tick, so every record is either in the
   * snapshot or in a journal the snapshot's `journal_gen` says to replay. `final` (close) keeps the
   * current journal file, as no write follows; `inPlace` never hands the image to the worker.
   */
  async run(final: boolean, inPlace = false): Promise<void> {
    const h = this.host;
    await h.journal.idle();
    const prev = h.gen;
    const next = prev + 1;
    // A worker rebuilds `svc.db` with its own page layout, after which this database's changed
    // pages would no longer fit it: with tracking on, a lost tracker falls back to an export.
    if (!h.pages && !final && !inPlace && this.liveBytes() >= this.workerBytes) return this.inWorker(prev, next);
    h.commitTurn();
    writeJournalGen(h.db.raw, next);
    if (!final) {
      try {
        h.journal.switchTo(next, journalPath(h.file, next));
      } catch (err) {
        writeJournalGen(h.db.raw, prev);
        throw err;
      }
    }
    h.gen = next;
    if (h.pages && !h.pages.lost) await this.writePages(h.pages);
    else await this.exportWhole();
    await this.retire(next);
    this.count += 1;
  }

  private async writePages(tracker: PageTracker): Promise<void> {
    const h = this.host;
    const pageCount = Number(h.db.one('PRAGMA page_count')?.[0] ?? 0);
    h.dirty = false;
    try {
      // A slice of pages is copied into one reused buffer and written per turn: writes go on
      // between slices (copy on write keeps the snapshot), and no copy of all changed pages is made.
      await writeTrackedPages(h.file, tracker, pageCount, h.pageStep, this.sliceSize);
    } catch (err) {
      h.dirty = true;
      throw err;
    }
    this.dbBytes = pageCount * tracker.pageSize;
  }

  private async exportWhole(): Promise<void> {
    const h = this.host;
    const image = h.db.raw.export();
    h.dirty = false;
    try {
      await writeExport(h.file, image, h.pages, 'a whole-image checkpoint failed');
    } catch (err) {
      h.dirty = true;
      throw err;
    }
    this.dbBytes = image.length;
  }

  /** Size of the in-memory database (what an export would copy). */
  private liveBytes(): number {
    const pages = Number(this.host.db.one('PRAGMA page_count')?.[0] ?? 0);
    const size = Number(this.host.db.one('PRAGMA page_size')?.[0] ?? 0);
    return pages * size;
  }

  /**
   * The checkpoint of a large database: appends move to generation `next` now, and a worker
   * thread rebuilds `svc.db` from the last one plus the generations up to `prev`.
   */
  private async inWorker(prev: number, next: number): Promise<void> {
    const h = this.host;
    // The open turn's records belong to the generation the worker covers.
    h.commitTurn();
    h.journal.switchTo(next, journalPath(h.file, next));
    h.gen = next;
    const writes = h.writes;
    const job: CheckpointJob = { file: h.file, upto: prev, next, parts: h.partNames };
    const reply = await new Promise<CheckpointReply>((resolve) => {
      const worker = startThread(import.meta.url, './checkpoint-worker', job);
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
    if (h.writes === writes) h.dirty = false;
    await this.retire(next);
    this.dbBytes = reply.bytes;
    this.count += 1;
  }

  private async retire(next: number): Promise<void> {
    const h = this.host;
    h.journal.dropBefore(next);
    for (const j of listJournals(h.file)) {
      if (j.gen < next) await fs.promises.rm(j.path, { force: true });
    }
  }
}
