// Which cursor to acknowledge. Events may finish out of order (a runtime works on several
// conversations at once), but an ACK covers every earlier cursor, so the acknowledged cursor is the
// highest one with nothing unfinished at or before it. Events re-sent after a reconnect that are
// already in hand are recognised and not handed out twice. Pure: no sockets, no files.

interface Entry {
  cursor: number;
  done: boolean;
}

export type Arrival = 'new' | 'in_hand' | 'processed';

export class AckLedger {
  /** Highest cursor with everything at or before it processed. */
  #base: number | undefined;
  /** Delivered cursors above the base, ascending. */
  #open: Entry[] = [];
  /** Highest cursor the current session delivered, and the last ACK sent on it. */
  #sessionMax = -1;
  #sent = -1;

  constructor(base?: number) {
    this.#base = base;
  }

  get base(): number | undefined {
    return this.#base;
  }

  /** Unfinished events in hand. */
  get inHand(): number {
    return this.#open.filter((e) => !e.done).length;
  }

  /** A new session starts delivering after `cursor` (READY.cursor). */
  startSession(cursor: number): void {
    if (this.#base === undefined || cursor < this.#base) {
      // No cursor yet, or the server's store is behind ours (it was reset): its position wins.
      if (this.#base !== undefined) this.#open = [];
      this.#base = cursor;
    }
    this.#sessionMax = cursor;
    this.#sent = cursor;
  }

  /** Records an EVENT of the current session. */
  arrive(cursor: number): Arrival {
    if (cursor > this.#sessionMax) this.#sessionMax = cursor;
    if (this.#base !== undefined && cursor <= this.#base) return 'processed';
    const at = this.#find(cursor);
    if (at.found) return this.#open[at.index]!.done ? 'processed' : 'in_hand';
    this.#open.splice(at.index, 0, { cursor, done: false });
    return 'new';
  }

  /** Marks a cursor processed; returns the new base when it moved. */
  finish(cursor: number): number | undefined {
    const at = this.#find(cursor);
    if (!at.found) return undefined;
    this.#open[at.index]!.done = true;
    let moved: number | undefined;
    while (this.#open.length > 0 && this.#open[0]!.done) {
      moved = this.#open.shift()!.cursor;
    }
    if (moved !== undefined) this.#base = moved;
    return moved;
  }

  /** Forgets an unfinished cursor, so that its re-delivery counts as new (its handling failed). */
  forget(cursor: number): void {
    const at = this.#find(cursor);
    if (at.found && !this.#open[at.index]!.done) this.#open.splice(at.index, 1);
  }

  /**
   * The ACK to send on the current session now, if any: never beyond what this session delivered
   * (the server refuses that), never beyond `limit` (what is stored), never a repeat.
   */
  ackToSend(limit = Infinity): number | undefined {
    if (this.#base === undefined) return undefined;
    const c = Math.min(this.#base, this.#sessionMax, limit);
    if (c <= this.#sent) return undefined;
    this.#sent = c;
    return c;
  }

  #find(cursor: number): { found: boolean; index: number } {
    let lo = 0;
    let hi = this.#open.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.#open[mid]!.cursor;
      if (c === cursor) return { found: true, index: mid };
      if (c < cursor) lo = mid + 1;
      else hi = mid;
    }
    return { found: false, index: lo };
  }
}
