// The per-turn transaction of the sqlite backend. Every write of one event-loop turn is applied in
// one transaction, committed once after them (a COMMIT writes each changed page to the in-memory
// file: once per turn instead of once per write). While a group fdatasync is in flight, nothing
// written since can be acknowledged before the next one starts, so the transaction stays open
// across turns until then (the journal calls commit just before it starts the fdatasync): one
// COMMIT per group commit. Writes are visible to reads at once either way, and durability is the
// journal's. The turn's journal records are written together just before its COMMIT (one write
// call: journal.ts `flush`); when that write fails, the whole turn is rolled back and every write
// of it fails (`Batch.failed`), while the writes of earlier turns stand. A write that fails after
// changing the database is undone by rolling the turn back and applying the turn's earlier writes
// again: failures are rare, and this keeps savepoints (two more statements) off every write.

import { StoreError } from '../../types.js';
import { unavailable } from './durable-file.js';
import { applyOps, type JournalOp } from '../apply.js';
import type { Db } from '../db.js';
import type { AnyPart } from '../../part.js';

/** One applied write of a turn: its ops and their bodies (for undo). */
export interface TurnWrite {
  jops: JournalOp[];
  bodies: (string | undefined)[];
}

/** The writes of one turn share one of these: set when the turn's journal write failed. */
export interface Batch {
  failed?: StoreError;
}

export class Turn {
  private isOpen = false;
  /** The writes applied in the open turn, oldest first. */
  private writes: TurnWrite[] = [];
  /** The open turn's (a write checks it once durable: its records may not have reached the journal). */
  batch: Batch = {};
  /** Set for good when a turn's COMMIT (or an undo) failed. */
  broken: StoreError | undefined;

  constructor(
    private readonly db: Db,
    /** The store's parts (their effects are in the turn's records). */
    private readonly parts: readonly AnyPart[],
    private readonly log: (msg: string) => void,
    /** Called whenever the database may differ from what reads cached. */
    private readonly invalidate: () => void,
    /** Whether the journal will call commit before the next fdatasync (one is in flight). */
    private readonly syncing: () => boolean = () => false,
    /** Writes the turn's journal records (one write call); throws when they could not be written. */
    private readonly flush: () => void = () => {},
    /** Called with the writes of a turn rolled back because its records could not be written. */
    private readonly undone: (writes: TurnWrite[], err: StoreError) => void = () => {},
  ) {}

  /** Opens the turn's transaction unless open; throws once the store is broken. */
  open(): void {
    if (this.broken) throw this.broken;
    if (this.isOpen) return;
    this.db.run('BEGIN');
    this.isOpen = true;
    this.batch = {};
    setImmediate(this.end);
  }

  private readonly end = (): void => {
    // Every write of the turn waits for the journal's next group, which commits first.
    if (this.writes.length > 0 && this.syncing()) return;
    this.commit();
  };

  /** Records a write applied in the open turn (for undo). */
  applied(jops: JournalOp[], bodies: (string | undefined)[]): void {
    this.writes.push({ jops, bodies });
  }

  /**
   * Writes the open turn's journal records, then commits its transaction; called at the end of a
   * turn, before a group fdatasync, and before exports, journal switches and close. When the
   * records cannot be written, the turn is rolled back instead and its writes fail.
   */
  commit(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    const writes = this.writes;
    this.writes = [];
    try {
      this.flush();
    } catch (err) {
      this.rollBack(writes, err);
      return;
    }
    try {
      this.db.run('COMMIT');
    } catch (err) {
      this.fail(`the database could not commit (${messageOf(err)})`);
    }
  }

  /** The turn's records did not reach the journal: none of its writes may stay visible or be acknowledged. */
  private rollBack(writes: TurnWrite[], err: unknown): void {
    const failed = unavailable(err);
    this.batch.failed = failed;
    this.log(`store: journal append failed: ${messageOf(err)}`);
    try {
      this.db.run('ROLLBACK');
    } catch (e) {
      this.fail(`the database could not roll back a turn the journal refused (${messageOf(e)})`);
    }
    this.invalidate();
    this.undone(writes, failed);
  }

  /** Undoes the write being applied: the turn is rolled back and its earlier writes applied again. */
  undoLast(): void {
    try {
      this.db.run('ROLLBACK');
      this.db.run('BEGIN');
      for (const b of this.writes) applyOps(this.db.run, b.jops, this.parts, (i) => b.bodies[i]);
    } catch (err) {
      this.isOpen = false;
      this.writes = [];
      this.fail(`the database could not undo a failed write (${messageOf(err)})`);
    }
    // Bodies read during the turn are still right, but a failure path need not be fast.
    this.invalidate();
  }

  /**
   * Only an exhausted memory gets here. The journal holds writes the database just lost, so no
   * later write may build on it: every write fails until a restart replays the journal.
   */
  private fail(why: string): void {
    try {
      this.db.run('ROLLBACK');
    } catch {
      // no transaction left to roll back
    }
    this.invalidate();
    this.broken = new StoreError('unavailable', `${why}; restart to recover from the journal`);
    this.log(`store: ${this.broken.message}`);
  }
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
