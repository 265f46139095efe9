// Where a conversation's newest `keep` messages begin, for retention's `max_messages` (#40 part 4,
// Store.expiredMessages): the "cut", the seq of the newest message over the count, so every
// message up to it has expired.
//
// Finding it means counting index entries of messages_by_conv (conv, seq) from the newest: about
// 1.3 us each in sql.js, 200 ms for a room that keeps 150,000. So it is counted once per
// conversation, COUNT_CHUNK entries a turn (other work runs in between), and then kept: each later
// call counts only the messages written since (also by chunks) and moves the cut forward past as
// many; a purge of a message between the cut and what was counted takes one off (a point read of
// its seq, before the row goes: `purging`), and the cut moves back past as many. Every error leans
// one way: a count too low keeps more messages, never fewer. A purge of a conversation being counted makes that count void (it
// is counted again next time); a rolled-back write clears every cut.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { JournalOp } from './apply.js';
import type { Db } from './db.js';

/** Index entries counted per turn (about 5 ms; tests lower it). */
export const COUNT_CHUNK = { entries: 4096 };
/** Most conversations whose cuts are kept (a run over more counts the rest again). */
const MAX_CUTS = 65536;

interface Cut {
  keep: number;
  /** The seq of the newest message over the count (0: none). */
  seq: number;
  /** How many of the conversation's messages are newer than `seq`, up to `seen`. */
  newer: number;
  /** The last message seq given when `newer` was counted. */
  seen: number;
}

export class KeepCuts {
  private readonly cuts = new Map<string, Cut>();
  /** Conversations being counted: a purge in one makes its count void. */
  private readonly counting = new Map<string, { void: boolean }>();

  constructor(private readonly db: Db) {}

  /** The seq up to which the messages of `conv` are over its newest `keep` (0: none are). */
  async cut(conv: string, keep: number): Promise<number> {
    const known = this.cuts.get(conv);
    const c = known?.keep === keep ? await this.advance(conv, known) : await this.first(conv, keep);
    if (!c) {
      this.cuts.delete(conv);
      return 0;
    }
    if (this.cuts.size >= MAX_CUTS && !this.cuts.has(conv)) this.cuts.clear();
    this.cuts.set(conv, c);
    return c.seq;
  }

  /** Notes the purges among `jops` (before they are applied: their rows give their seqs). */
  purging(jops: readonly JournalOp[]): void {
    const cut: string[] = [];
    for (const op of jops) {
      if (op.op !== 'message.purge') continue;
      const w = this.counting.get(op.conv);
      if (w) w.void = true;
      if (this.cuts.has(op.conv)) cut.push(op.message_id);
    }
    if (cut.length === 0) return;
    // One read for the batch (a statement per message cost a retention batch as much as a table's delete).
    for (const [conv, seq] of this.db.all('SELECT conv, seq FROM messages WHERE id IN (SELECT value FROM json_each(?))', [
      JSON.stringify(cut),
    ])) {
      const c = this.cuts.get(conv as string);
      // Newer than `seen`: not counted yet, and the next count will not see it.
      if (c && Number(seq) > c.seq && Number(seq) <= c.seen) c.newer--;
    }
  }

  /** Forgets every cut (after a rollback: what was counted may not be in the database). */
  clear(): void {
    this.cuts.clear();
    for (const w of this.counting.values()) w.void = true;
  }

  /** Counts `keep` messages down from the newest; undefined when a purge voided the count. */
  private async first(conv: string, keep: number): Promise<Cut | undefined> {
    const seen = this.lastSeq();
    const r = await this.walk(conv, 0, seen, keep + 1, true);
    if (!r) return undefined;
    return r.seq === undefined ? { keep, seq: 0, newer: r.count, seen } : { keep, seq: r.seq, newer: keep, seen };
  }

  /**
   * Counts the messages written since `c.seen` and moves the cut forward past as many, or back past
   * as many as purges took above it.
   */
  private async advance(conv: string, c: Cut): Promise<Cut | undefined> {
    const seen = this.lastSeq();
    if (seen > c.seen) {
      const added = await this.walk(conv, c.seen, seen, Number.MAX_SAFE_INTEGER, false);
      if (!added) return undefined;
      c.newer += added.count;
      c.seen = seen;
    }
    if (c.newer > c.keep) {
      const moved = await this.walk(conv, c.seq, c.seen, c.newer - c.keep, false);
      if (moved?.seq === undefined) return undefined;
      c.seq = moved.seq;
      c.newer = c.keep;
    } else if (c.newer < c.keep && c.seq > 0) {
      // Purges above the cut: as many messages below it are kept now.
      const back = await this.walk(conv, 0, c.seq, c.keep - c.newer + 1, true);
      if (!back) return undefined;
      c.newer += back.seq === undefined ? back.count : c.keep - c.newer;
      c.seq = back.seq ?? 0;
    }
    return c;
  }

  /**
   * The seq of the `n`th message of `conv` with a seq in (lo, hi], counted up from lo or down
   * from hi, with how many it counted (all there are, and no seq, when fewer); COUNT_CHUNK entries a
   * turn. Messages written meanwhile are above hi. Undefined when a purge in `conv` voided it.
   */
  private async walk(conv: string, lo: number, hi: number, n: number, down: boolean): Promise<{ seq?: number; count: number } | undefined> {
    const w = { void: false };
    this.counting.set(conv, w);
    try {
      let count = 0;
      for (;;) {
        const step = Math.min(n - count, COUNT_CHUNK.entries);
        const row = this.db.one(
          `SELECT seq FROM messages WHERE conv = ? AND seq > ? AND seq <= ? ORDER BY seq ${down ? 'DESC' : 'ASC'} LIMIT 1 OFFSET ?`,
          [conv, lo, hi, step - 1],
        );
        if (!row) {
          const rest = this.db.one('SELECT count(*) FROM (SELECT 1 FROM messages WHERE conv = ? AND seq > ? AND seq <= ? LIMIT ?)', [
            conv,
            lo,
            hi,
            step,
          ]);
          return { count: count + Number(rest![0]) };
        }
        count += step;
        const seq = Number(row[0]);
        if (count === n) return { seq, count };
        if (down) hi = seq - 1;
        else lo = seq;
        await nextTurn();
        if (w.void) return undefined;
      }
    } finally {
      if (this.counting.get(conv) === w) this.counting.delete(conv);
    }
  }

  /** The seq the last message row took (AUTOINCREMENT keeps it in sqlite_sequence). */
  private lastSeq(): number {
    return Number(this.db.one("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0)")![0]);
  }
}
