// Search index upkeep of the sqlite backend. Messages are not indexed in the write's own turn: FTS4
// writes a new index segment at every COMMIT and, when one level holds 16 of them, merges the whole
// level inside that COMMIT (hundreds of milliseconds at a million messages). Instead, idle ticks
// index what is pending in batches (one segment per batch, not per turn) and move the index's
// merges forward a few blocks at a time with FTS4's incremental `merge=X,Y`, which keeps every
// level below 16 segments, so the crisis merge never runs. A search first indexes what is still
// pending, so it finds every acknowledged message.
//
// What is pending is known from the database alone: `meta.search_indexed_seq` is the last message
// seq indexed (in the same transaction as the index rows), and every message after it is pending.
// Start-up replay and checkpoints apply messages without indexing them; whichever database a
// restart loads, the upkeep completes it. Live writes hand over each message with the seq its row
// took (the store counts them: `seq` is an AUTOINCREMENT key, and a step checks the last one it
// uses against its row), so once that backlog is worked off, steps index what they were handed
// without asking the database which messages are pending or reading them back.
//
// A message of very many distinct words (a 1 MiB text can hold 131k) is indexed in slices, each in
// a transaction and a turn of its own: FTS4 spends seconds on one such row in one call. Its scope
// row and the seq mark come with the last slice, so a search finds it only whole; a restart in
// between indexes it again from the start (a word indexed twice for one docid reads as once).

import type { Message } from '../../protocol/types.js';
import { indexText } from '../../protocol/search-text.js';
import { IndexRows, indexScope, indexSlice } from './search.js';
import type { Db } from './db.js';
import { mergeStep } from './search-merge.js';
import { SearchRebuild } from './search-rebuild.js';

/** The meta key holding the last message seq whose index rows are written. */
export const INDEXED_KEY = 'search_indexed_seq';

/** Most messages indexed by one idle step (one index segment each; tests lower it). */
export const STEP_LIMIT = { messages: 128 };
/**
 * How long messages may wait for a step when fewer than STEP_LIMIT.messages are pending, in ms. A step
 * per turn would commit the store's open turn and its own transaction every turn, and write many
 * tiny segments for the merges to redo; waiting fills segments and halves the commits.
 */
const STEP_WAIT_MS = 50;
/** Time one idle step may spend indexing before it commits, in ms. */
const STEP_BUDGET_MS = 2;
/** Time one step may spend on a rebuild of the index after a redaction (search-rebuild.ts), in ms. */
const REBUILD_BUDGET_MS = 4;
/** Distinct words of one message indexed per slice (about 30 ms of FTS4 work; tests lower it). */
export const SLICE = { words: 8192 };

/** A message indexed slice by slice: its distinct words and how many are indexed. */
interface Slicing extends Live {
  words: string[];
  at: number;
}

/** The distinct words of an index text, when there are more than one slice holds. */
function manyWords(text: string): string[] | undefined {
  // Each word takes at least two characters with its space: shorter texts are one slice.
  if (text.length < 2 * SLICE.words) return undefined;
  const words = [...new Set(text.split(' '))];
  return words.length > SLICE.words ? words : undefined;
}

/** Rows read per query when draining. */
const READ_ROWS = 512;

const PENDING = 'SELECT seq, id FROM messages WHERE seq > ? ORDER BY seq LIMIT ?';
const BODY = 'SELECT body FROM messages WHERE seq = ?';
const ID_AT = 'SELECT id FROM messages WHERE seq = ?';
const READ_INDEXED = `SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${INDEXED_KEY}'`;
const PENDING_UPTO = `SELECT count(*) FROM (SELECT 1 FROM messages WHERE seq > (${READ_INDEXED}) LIMIT ?)`;
const WRITE_INDEXED = `UPDATE meta SET value = CAST(? AS TEXT) WHERE key = '${INDEXED_KEY}'`;

/**
 * Indexes pending messages in the open transaction, oldest first; returns how many it indexed.
 * With `slice`, it stops before a message of many words and hands it back to be sliced.
 */
function indexPending(db: Db, maxMessages: number, deadline: number, known?: Map<string, Live>, slice?: (s: Slicing) => void): number {
  let indexed = Number(db.one(READ_INDEXED)?.[0] ?? 0);
  let count = 0;
  const out = new IndexRows();
  for (;;) {
    const rows = db.all(PENDING, [indexed, Math.min(maxMessages - count, READ_ROWS)]);
    let stop = false;
    for (const [seq, id] of rows) {
      const m = known?.get(id as string)?.m ?? (JSON.parse(db.one(BODY, [seq!])![0] as string) as Message);
      const text = indexText(m);
      const words = slice ? manyWords(text) : undefined;
      if (words) {
        slice!({ seq: seq as number, m, words, at: 0 });
        stop = true;
        break;
      }
      known?.delete(id as string);
      out.add(seq as number, m, text);
      indexed = seq as number;
      count++;
      if (performance.now() > deadline) break;
    }
    if (count > 0) {
      out.write(db);
      db.run(WRITE_INDEXED, [indexed]);
    }
    if (stop || rows.length === 0 || count >= maxMessages || performance.now() > deadline) return count;
  }
}

/**
 * Indexes messages written live, oldest first, when they are every message pending (so the
 * database need not be asked which are); returns how many it indexed, or undefined (nothing
 * written) when the seqs they were handed with are not their rows'. Stops before a message of
 * many words and hands it to `slice`.
 */
function indexLive(
  db: Db,
  known: Map<string, Live>,
  maxMessages: number,
  deadline: number,
  slice: (s: Slicing) => void,
): number | undefined {
  const out = new IndexRows();
  const taken: string[] = [];
  /** The last message looked at, and the seq of the last one indexed. */
  let last: Live | undefined;
  let indexedSeq = 0;
  let sliced: Slicing | undefined;
  for (const [id, live] of known) {
    if (taken.length >= maxMessages) break;
    last = live;
    const text = indexText(live.m);
    const words = manyWords(text);
    if (words) {
      sliced = { seq: live.seq, m: live.m, words, at: 0 };
      break;
    }
    out.add(live.seq, live.m, text);
    taken.push(id);
    indexedSeq = live.seq;
    if (performance.now() > deadline) break;
  }
  if (!last) return 0;
  // The seqs were counted by the store, not read: the last one must be that message's row.
  if (db.one(ID_AT, [last.seq])?.[0] !== last.m.id) return undefined;
  if (taken.length > 0) {
    out.write(db);
    db.run(WRITE_INDEXED, [indexedSeq]);
    for (const id of taken) known.delete(id);
  }
  if (sliced) slice(sliced);
  return taken.length;
}

/** Indexes the next slice of a sliced message in the open transaction; true when it is whole. */
function indexNextSlice(db: Db, s: Slicing): boolean {
  const part = s.words.slice(s.at, s.at + SLICE.words);
  s.at += part.length;
  indexSlice(db.run, s.seq, part.join(' '));
  if (s.at < s.words.length) return false;
  indexScope(db.run, s.seq, s.m);
  db.run(WRITE_INDEXED, [s.seq]);
  return true;
}

/** Indexes every pending message in one transaction (the checkpoint worker, off the main thread). */
export function indexAllPending(db: Db): void {
  db.run('BEGIN');
  try {
    indexPending(db, Infinity, Infinity);
    db.run('COMMIT');
  } catch (err) {
    db.run('ROLLBACK');
    throw err;
  }
}

/** A message written live, with the seq its row took. */
interface Live {
  seq: number;
  m: Message;
}

export class SearchUpkeep {
  /**
   * Messages written live and not yet indexed, by id, in the order of their seqs: spares parsing
   * their stored bodies again and, once no backlog is left, reading which messages are pending.
   */
  private readonly known = new Map<string, Live>();
  /** Whether messages may be pending or merges unfinished (cleared when a step finds neither). */
  private work = true;
  private soon: NodeJS.Immediate | undefined;
  private later: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The message being indexed slice by slice, if any. */
  private slicing: Slicing | undefined;
  /**
   * Whether messages may be pending that `known` does not hold: those a start-up replay applied,
   * or those a failed step left. Live writes are all noted, so once the database shows no such
   * backlog, steps stop asking it (a count per step).
   */
  private unknown = true;
  /** The rebuild a redaction started, stepped beside the indexing while `rebuilding`. */
  private readonly rebuild: SearchRebuild;
  private rebuilding = false;

  constructor(
    private readonly db: Db,
    /** Commits the store's open turn (false once the store is broken): upkeep runs in transactions of its own. */
    private readonly commitTurn: () => boolean,
    private readonly log: (msg: string) => void,
    /** Called when a rebuild has retired the old index: the store's scrub checkpoint is due. */
    private readonly rebuilt: () => void = () => {},
  ) {
    this.rebuild = new SearchRebuild(db);
  }

  /** Starts stepping a rebuild: one a redaction just started, or one a restart finds under way. */
  rebuildStarted(): void {
    this.rebuild.reset();
    this.rebuilding = true;
    this.work = true;
    this.schedule();
  }

  /** Goes on with a rebuild a stop interrupted (the database says where it was); whether there was one. */
  resumeRebuild(): boolean {
    if (this.rebuild.state() === 'idle') return false;
    this.rebuildStarted();
    return true;
  }

  /** Whether a rebuild is under way. */
  get rebuildPending(): boolean {
    return this.rebuilding;
  }

  /**
   * Notes a message just written as row `seq`: an idle tick will index it. Without `seq`, an edit or
   * delete, whose write indexed the new words itself (search.ts indexEdit): that segment is merged.
   */
  written(m: Message, seq?: number): void {
    if (seq !== undefined) this.known.set(m.id, { seq, m });
    this.work = true;
    this.schedule(this.known.size >= STEP_LIMIT.messages);
  }

  /** Forgets a message noted by `written` whose write was rolled back, or that was purged: no rows for it. */
  unwritten(id: string): void {
    this.known.delete(id);
    if (this.slicing?.m.id === id) this.slicing = undefined;
  }

  /**
   * Starts stepping if anything is left to do (after open: replayed messages are pending): at the
   * next idle tick when `now` (a full batch), else after STEP_WAIT_MS.
   */
  schedule(now = true): void {
    if (this.stopped || !this.work || this.soon) return;
    if (now) {
      if (this.later) clearTimeout(this.later);
      this.later = undefined;
      this.soon = setImmediate(this.step);
    } else {
      this.later ??= setTimeout(this.step, STEP_WAIT_MS);
    }
  }

  /**
   * Indexes everything pending now, so a search sees every message written before it; a message of
   * many words is indexed a slice per turn, other work running in between.
   */
  async drain(): Promise<void> {
    for (;;) {
      if (this.stopped || !this.work || !this.commitTurn()) return;
      try {
        this.transaction(() => this.advance(Infinity, Infinity));
      } catch (err) {
        this.failed(err);
        return;
      }
      if (!this.slicing) {
        this.known.clear();
        return;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** One slice of the sliced message, or pending messages up to the next one to slice; how many were indexed. */
  private advance(maxMessages: number, deadline: number): number {
    if (this.slicing) {
      const s = this.slicing;
      if (indexNextSlice(this.db, s)) {
        this.slicing = undefined;
        this.known.delete(s.m.id);
        return 1;
      }
      return 0;
    }
    const slice = (s: Slicing) => (this.slicing = s);
    if (!this.unknown) {
      const indexed = indexLive(this.db, this.known, maxMessages, deadline, slice);
      if (indexed !== undefined) return indexed;
      this.log('store: search index upkeep: the seqs of live messages disagree with the database; reading them from it');
      this.unknown = true;
    }
    return indexPending(this.db, maxMessages, deadline, this.known, slice);
  }

  /** Stops stepping for good (before the database closes). */
  stop(): void {
    this.stopped = true;
    if (this.soon) clearImmediate(this.soon);
    if (this.later) clearTimeout(this.later);
    this.soon = undefined;
    this.later = undefined;
    this.known.clear();
    this.slicing = undefined;
  }

  private readonly step = (): void => {
    if (this.soon) clearImmediate(this.soon);
    if (this.later) clearTimeout(this.later);
    this.soon = undefined;
    this.later = undefined;
    if (this.stopped || !this.commitTurn()) return;
    let more = false;
    let full = false;
    let rebuilt = false;
    try {
      this.transaction(() => {
        // Anything indexed means another step: more may be pending, and the segment this one
        // writes at COMMIT is only seen by the next step's merge. A slice is a step's whole work.
        const slicing = this.slicing !== undefined;
        const indexed = this.advance(STEP_LIMIT.messages, performance.now() + STEP_BUDGET_MS);
        full = indexed >= STEP_LIMIT.messages || this.slicing !== undefined;
        more = indexed > 0 || this.slicing !== undefined;
        if (!slicing && this.slicing === undefined && mergeStep(this.db)) more = true;
        // A rebuild steps on every tick until it is done: the loop stays free between steps.
        if (this.rebuilding) {
          rebuilt = this.rebuild.step(performance.now() + REBUILD_BUDGET_MS) === 'idle';
          more ||= !rebuilt;
          full ||= !rebuilt;
        }
      });
    } catch (err) {
      this.failed(err);
      return;
    }
    if (rebuilt) {
      this.rebuilding = false;
      this.rebuilt();
    }
    if (!more) {
      this.work = false;
      this.known.clear();
    }
    // A backlog (a start-up replay, a burst) is worked off tick by tick; merges and a batch still
    // filling wait.
    this.schedule(full || this.known.size >= STEP_LIMIT.messages || this.backlog());
  };

  /** Whether messages are pending beyond the live writes waiting for a batch (a replay at start). */
  private backlog(): boolean {
    if (!this.unknown) return false;
    const pending = Number(this.db.one(PENDING_UPTO, [this.known.size + 1])?.[0] ?? 0);
    if (pending > this.known.size) return true;
    this.unknown = false;
    return false;
  }

  private transaction(body: () => void): void {
    this.db.run('BEGIN');
    try {
      body();
      this.db.run('COMMIT');
    } catch (err) {
      try {
        this.db.run('ROLLBACK');
      } catch {
        // nothing left to roll back
      }
      throw err;
    }
  }

  /**
   * Only an exhausted memory gets here. The seq mark was rolled back with the index rows, so the
   * index is behind, never wrong: searches see what is indexed, the next write or restart retries.
   */
  private failed(err: unknown): void {
    this.work = false;
    this.unknown = true;
    this.slicing = undefined;
    this.known.clear();
    this.rebuild.reset();
    this.log(`store: search index upkeep failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
