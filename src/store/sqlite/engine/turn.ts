// The per-turn transaction of the sqlite backend. Every write of one event-loop turn is applied in
// one transaction, committed once after them (a COMMIT writes each changed page to the in-memory
// file: once per turn instead of once per write). While a group fdatasync is in flight, nothing
// written since can be acknowledged before the next one starts, so the transaction stays open
// across turns until then (the journal calls commit just before it starts the fdatasync): one
// COMMIT per group commit. Writes are visible to reads at once either way, and durability is the
// journal's. A write that fails after changing the database is undone by
// rolling the turn back and applying the turn's earlier writes again: failures are rare, and this
// keeps savepoints (two more statements) off every write.

import { StoreError } from '../../types.js';
import { applyOps, type JournalOp } from '../apply.js';
import type { Db } from '../db.js';

export class Turn {
  private isOpen = false;
  /** The writes applied in the open turn, oldest first. */
  private writes: { jops: JournalOp[]; bodies: (string | undefined)[] }[] = [];
  /** Set for good when a turn's COMMIT (or an undo) failed. */
  broken: StoreError | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: (msg: string) => void,
    /** Called whenever the database may differ from what reads cached. */
    private readonly invalidate: () => void,
    /** Whether the journal will call commit before the next fdatasync (one is in flight). */
    private readonly syncing: () => boolean = () => false,
  ) {}

  /** Opens the turn's transaction unless open; throws once the store is broken. */
  open(): void {
    if (this.broken) throw this.broken;
    if (this.isOpen) return;
    this.db.run('BEGIN');
    this.isOpen = true;
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

  /** Commits the open transaction; called at the end of a turn, before a group fdatasync, and before exports and close. */
  commit(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.writes = [];
    try {
      this.db.run('COMMIT');
    } catch (err) {
      this.fail(`the database could not commit (${messageOf(err)})`);
    }
  }

  /** Undoes the write being applied: the turn is rolled back and its earlier writes applied again. */
  undoLast(): void {
    try {
      this.db.run('ROLLBACK');
      this.db.run('BEGIN');
      for (const b of this.writes) applyOps(this.db.run, b.jops, (i) => b.bodies[i]);
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
