// The main thread's side of the sqlite backend's search (#43 part 1): it feeds the search worker
// (search-worker.ts) the store's messages and asks it for candidates. Nothing of the full-text
// index runs here: a write hands over the JSON bodies it has already serialized for the journal,
// once the write is durable, and they are posted to the worker together, FEED_WAIT_MS later (at
// once when many are waiting): each post wakes the worker's thread.
//
// The feed is a cursor over message seqs (`fed`): the next message is taken from the bodies the
// writes handed over or, where there is none (the catch-up at open from the seq the search file
// holds, a rebuild, a seq a purge took), read from the store's rows a batch per tick. Only
// acknowledged writes are fed (`acked`): a turn whose journal write failed is undone and its seqs
// given again, and the index must never hold words a message did not keep.
//
// Read-your-writes: a search first feeds every acknowledged message, then posts its query; the
// worker handles messages in order, so the query is answered after they are indexed (a bounded
// wait: SEARCH_WAIT, past which the search is refused as unavailable while the index catches up).
//
// A redaction starts a rebuild: the worker fills a new database from the store's rows as they are
// now (`fill`), beside the one that answers, then writes it over the file (search-worker.ts).

import fs from 'node:fs';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { SqlValue } from 'sql.js';
import { StoreError } from '../types.js';
import type { JournalOp } from './apply.js';
import type { Db } from './db.js';
import type { CandidateQuery, FeedItem } from './search-db.js';
import type { FromWorker, ToWorker } from './search-worker.js';
import { openSearchLine, type SearchLine } from './search-thread.js';

/** The search database's file beside the store's. */
export const searchFileOf = (dbFile: string): string => `${dbFile}.search`;

/** Rows read from the store per read when the feed reads them (catch-up, rebuild; tests lower it). */
export const FEED = { rows: 256 };
/** Time one tick of the feed may spend reading rows, in ms. */
const FEED_BUDGET_MS = 2;
/**
 * How long a few acknowledged messages wait to be posted together, in ms. A post per durable write
 * woke the worker's thread per message: at 368 paced sends a second it spent 105-112 µs of CPU a
 * message, 48-51 with a post every 50 ms, and the main thread 530-564 against 499-510. A search
 * does not wait for it (it posts what is pending first), the index's lag grows by as much.
 */
const FEED_WAIT_MS = 50;
/** Messages waiting (a burst, a catch-up from the rows) that are posted without waiting. */
const FEED_NOW = 1024;
/** Bodies of written messages kept for the feed; past this (a long catch-up) they are read back instead. */
const LIVE_MAX = 50_000;
/** How long a search waits for the index to catch up with the acknowledged writes (tests lower it). */
export const SEARCH_WAIT = { ms: 10_000 };

/** How long a search waits for the worker to start, in ms. */
const START_WAIT_MS = 60_000;
/** How long close waits for the worker to write its file, in ms. */
const CLOSE_WAIT_MS = 60_000;

const ROWS = 'SELECT seq, body FROM messages WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?';
const SEQ_OF = 'SELECT seq FROM messages WHERE id = ?';

export interface SearchIndexOptions {
  db: Db;
  file: string;
  epoch: string;
  /** The last message seq the store holds at open (all of it durable). */
  storeSeq: number;
  log: (msg: string) => void;
  /** Called when a rebuild's file has replaced the old one: the store's scrub checkpoint is due. */
  rebuilt: () => void;
}

export class SearchIndex {
  private readonly line: SearchLine;
  private readonly opts: SearchIndexOptions;
  private ready = false;
  private readonly started: Promise<void>;
  private startedNow: () => void = () => {};
  private broken: string | undefined;
  /** The last seq posted to the worker, and the last acknowledged. */
  private fed = 0;
  private acked: number;
  /** Bodies of acknowledged messages not yet fed, by seq. */
  private readonly live = new Map<number, string>();
  /** Cancels the feed's next step, when one is scheduled. */
  private soon: (() => void) | undefined;
  /** A rebuild's fill: the last seq read and the seq it reads up to. */
  private fill: { at: number; upto: number } | undefined;
  private rebuildOwed = false;
  /** Swaps posted: a rebuild is done when the last one posted is written (earlier ones may never be). */
  private swaps = 0;
  /** Acknowledged writes not yet indexed: their last seq and when they were acknowledged. */
  private readonly lagSeqs: number[] = [];
  private readonly lagTimes: number[] = [];
  private readonly requests = new Map<number, { resolve: (seqs: number[]) => void; reject: (err: Error) => void }>();
  private nextId = 1;
  private closing: Promise<void> | undefined;
  private closedNow: (() => void) | undefined;

  constructor(opts: SearchIndexOptions) {
    this.opts = opts;
    this.acked = opts.storeSeq;
    this.started = new Promise<void>((r) => (this.startedNow = r));
    this.line = openSearchLine({ file: opts.file, epoch: opts.epoch, storeSeq: opts.storeSeq }, (why) => {
      if (!this.closing) this.fail(why);
      this.closedNow?.();
    });
    this.line.port.on('message', (m: FromWorker) => this.heard(m));
    // Not a reason to keep the process alive, unless an answer is awaited (awaited()).
    this.line.port.unref();
  }

  private awaiting = 0;
  /** `p`, with the port keeping the process alive until it settles: its answer comes through the port. */
  private awaited<T>(p: Promise<T>): Promise<T> {
    if (this.awaiting++ === 0) this.line.port.ref();
    return p.finally(() => {
      if (--this.awaiting === 0) this.line.port.unref();
    });
  }

  /** The size of the search database as last written. */
  fileBytes(): number {
    try {
      return fs.statSync(this.opts.file).size;
    } catch {
      return 0; // not written yet
    }
  }

  /** Whether a redaction's rebuild is under way (its file not yet written). */
  get rebuilding(): boolean {
    return this.rebuildOwed;
  }

  /** The age of the oldest acknowledged message not yet indexed, in seconds (0: none). */
  lagSeconds(): number {
    const t = this.lagTimes[0];
    return t === undefined ? 0 : (performance.now() - t) / 1000;
  }

  /**
   * Hands over what a durable write changed: new messages (`firstSeq` is the seq before the first
   * one's), edits, deletes and purges, and a redaction (a rebuild).
   */
  written(jops: readonly JournalOp[], bodies: readonly (string | undefined)[], firstSeq: number): void {
    let seq = firstSeq;
    let forget: string[] | undefined;
    for (let i = 0; i < jops.length; i++) {
      const op = jops[i]!;
      if (op.op === 'message.insert') {
        seq++;
        if (this.live.size < LIVE_MAX) this.live.set(seq, bodies[i] ?? JSON.stringify(op.record.message));
      } else if (op.op === 'message.update') {
        const at = this.opts.db.one(SEQ_OF, [op.record.message.id])?.[0];
        if (at !== undefined) this.post({ op: 'edit', item: { seq: Number(at), body: bodies[i] ?? JSON.stringify(op.record.message) } });
      } else if (op.op === 'message.forget' || op.op === 'message.purge') (forget ??= []).push(op.message_id);
      else if (op.op === 'message.scrub') this.rebuild();
    }
    if (forget) this.post({ op: 'forget', ids: forget });
    if (seq > this.acked) {
      this.acked = seq;
      this.lagSeqs.push(seq);
      this.lagTimes.push(performance.now());
      this.schedule();
    }
  }

  /**
   * Starts a rebuild from the store's rows as they are now (a redaction, or one a restart finds
   * owed). Bodies handed over before may hold the redacted words: they are read back instead.
   */
  rebuild(): void {
    this.rebuildOwed = true;
    this.live.clear();
    this.fill = { at: 0, upto: this.acked };
    this.post({ op: 'rebuild' });
    this.schedule();
  }

  /** Candidate seqs for a search, newest first, once every acknowledged message is indexed. */
  async candidates(q: CandidateQuery): Promise<number[]> {
    await this.caughtUp();
    return this.awaited(
      new Promise<number[]>((resolve, reject) => {
        const id = this.nextId++;
        this.requests.set(id, { resolve, reject });
        this.post({ op: 'query', id, q });
      }),
    );
  }

  /** Feeds every acknowledged message (a tick at a time when there are many), within SEARCH_WAIT. */
  private async caughtUp(): Promise<void> {
    const target = this.acked;
    // The worker's start (loading sql.js and the file) is not catching up: waited for apart.
    if (!this.ready && !this.broken) await this.awaited(Promise.race([this.started, sleep(START_WAIT_MS, undefined, { ref: false })]));
    if (!this.ready && !this.broken) throw new StoreError('unavailable', 'search is unavailable: the search worker has not started');
    const until = performance.now() + SEARCH_WAIT.ms;
    for (;;) {
      if (this.broken) throw new StoreError('unavailable', `search is unavailable: ${this.broken}`);
      // Handed-over bodies are posted whole; rows are read within the budget, a tick at a time.
      if (this.ready) this.feed(FEED_BUDGET_MS);
      if (this.fed >= target) return;
      if (performance.now() > until)
        throw new StoreError('unavailable', `the search index is catching up with the store (at seq ${this.fed} of ${target}); try again`);
      await nextTurn();
    }
  }

  private schedule(): void {
    // A broken index feeds nothing: rescheduling would spin the loop for good.
    if (this.soon || !this.ready || this.closing || this.broken) return;
    const step = () => {
      this.soon = undefined;
      this.feed(FEED_BUDGET_MS);
      this.fillStep();
      if (this.fed < this.acked || this.fill) this.schedule();
    };
    if (this.acked - this.fed >= FEED_NOW || this.fill) {
      const t = setImmediate(step);
      this.soon = () => clearImmediate(t);
    } else {
      const t = setTimeout(step, FEED_WAIT_MS);
      this.soon = () => clearTimeout(t);
    }
  }

  /** Posts the next acknowledged messages: the bodies handed over, or rows read within `budget` ms. */
  private feed(budget: number): void {
    if (this.broken) return;
    const items: FeedItem[] = [];
    const deadline = performance.now() + budget;
    while (this.fed < this.acked) {
      const body = this.live.get(this.fed + 1);
      if (body !== undefined) {
        this.live.delete(++this.fed);
        items.push({ seq: this.fed, body });
        continue;
      }
      if (performance.now() > deadline) break;
      const rows = this.opts.db.all(ROWS, [this.fed, this.acked, FEED.rows]);
      for (const [seq, b] of rows) items.push({ seq: seq as number, body: b as string });
      this.fed = rows.length < FEED.rows ? this.acked : (rows[rows.length - 1]![0] as number);
      // Bodies of messages read back (or purged since they were handed over) are no longer needed.
      for (const s of this.live.keys()) {
        if (s > this.fed) break;
        this.live.delete(s);
      }
    }
    if (items.length > 0) this.post({ op: 'add', items });
  }

  /** One batch of a rebuild's fill; the swap once it has read every row up to where it started. */
  private fillStep(): void {
    const f = this.fill;
    if (!f || this.broken) return;
    const rows = this.opts.db.all(ROWS, [f.at, f.upto, FEED.rows]);
    const items: FeedItem[] = rows.map(([seq, body]: SqlValue[]) => ({ seq: seq as number, body: body as string }));
    if (items.length > 0) this.post({ op: 'fill', items });
    if (rows.length === FEED.rows) {
      f.at = items[items.length - 1]!.seq;
      return;
    }
    // Messages after `upto` reach the new database as they are fed: it has everything.
    this.fill = undefined;
    this.post({ op: 'swap', n: ++this.swaps });
  }

  private heard(m: FromWorker): void {
    switch (m.op) {
      case 'ready':
        if (m.note) this.opts.log(`store: search: ${m.note}`);
        this.fed = m.indexed;
        this.ready = true;
        this.startedNow();
        if (this.fed < this.acked) {
          // The catch-up counts as lag from now.
          this.lagSeqs.unshift(this.acked);
          this.lagTimes.unshift(performance.now());
        }
        this.schedule();
        return;
      case 'indexed':
        while (this.lagSeqs.length > 0 && this.lagSeqs[0]! <= m.seq) {
          this.lagSeqs.shift();
          this.lagTimes.shift();
        }
        return;
      case 'result': {
        const r = this.requests.get(m.id);
        this.requests.delete(m.id);
        if (m.error !== undefined) r?.reject(new StoreError('unavailable', `search failed: ${m.error}`));
        else r?.resolve(m.seqs ?? []);
        return;
      }
      case 'rebuilt':
        // A second redaction restarted the fill, or its swap is still being written: that one is owed.
        if (m.n < this.swaps || this.fill) return;
        this.rebuildOwed = false;
        this.opts.rebuilt();
        return;
      case 'closed':
        this.closedNow?.();
        return;
      case 'failed':
        if (m.fatal) this.fail(`search worker failed: ${m.error}`);
        else this.opts.log(`store: ${m.error}`);
        return;
    }
  }

  private post(m: ToWorker): void {
    if (!this.broken) this.line.port.postMessage(m);
  }

  private fail(why: string): void {
    if (this.broken) return;
    this.broken = why;
    this.startedNow();
    this.opts.log(`store: ${why}; searches are refused until a restart`);
    for (const r of this.requests.values()) r.reject(new StoreError('unavailable', `search is unavailable: ${why}`));
    this.requests.clear();
  }

  /** Feeds what is cheap to feed, lets the worker write its file, and stops it. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.soon?.();
      this.soon = undefined;
      if (this.ready && !this.broken) this.feed(FEED_BUDGET_MS);
      if (!this.broken) {
        const closed = new Promise<void>((r) => (this.closedNow = r));
        this.line.port.postMessage({ op: 'close' } satisfies ToWorker);
        // A worker that never got going (it said why: 'failed') does not answer.
        await this.awaited(Promise.race([closed, sleep(CLOSE_WAIT_MS, undefined, { ref: false })]));
      }
      this.line.release();
    })();
    return this.closing;
  }

  /**
   * Drops the index at once, writing nothing more: its file as the last write left it (what a
   * crash of the store leaves). Resolves once a write under way has ended, so that another store
   * opening the same files (a restart, in tests) never reads a file this one is still writing.
   */
  abandon(): Promise<void> {
    this.closing ??= (async () => {
      const gone = new Promise<void>((r) => this.line.port.once('close', () => r()));
      this.line.port.postMessage({ op: 'abandon' } satisfies ToWorker);
      await this.awaited(Promise.race([gone, sleep(CLOSE_WAIT_MS, undefined, { ref: false })]));
      this.line.release();
    })();
    return this.closing;
  }
}

/** What starting the search index needs of the store's scrub (scrub.ts). */
interface ScrubOwed {
  run(): void;
  owed(): boolean;
  rebuildOwed(): boolean;
}

/**
 * Starts the search worker for the store at `file`, fed from the seq its search file holds; a
 * redaction's rebuild or checkpoint a stop interrupted goes on.
 */
export function startSearchIndex(db: Db, file: string, storeSeq: number, log: (msg: string) => void, scrub: ScrubOwed): SearchIndex {
  const epoch = String(db.one("SELECT value FROM meta WHERE key = 'search_epoch'")?.[0] ?? '');
  const search = new SearchIndex({ db, file: searchFileOf(file), epoch, storeSeq, log, rebuilt: () => scrub.run() });
  if (scrub.rebuildOwed()) search.rebuild();
  else if (scrub.owed()) scrub.run();
  return search;
}
