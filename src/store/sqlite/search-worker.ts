// The search worker thread of the sqlite backend (#43 part 1): for each store open in the process
// (search-thread.ts), on that store's own port, it keeps the search database (search-db.ts) in the
// thread's sql.js instance, indexes the messages the store hands it in batches,
// runs the FTS4 merges, answers the candidate queries of searches, and writes its file (the pages
// changed since the last write, search-file.ts) every so often and at close. Nothing of it runs on
// the main thread, whose event loop the index's inserts and merges used to stall.
//
// Messages are handled in the order they were posted, so a query posted after a message was
// handed over is answered after that message is indexed (read-your-writes: search-index.ts).
// While a redaction's rebuild runs, a second database is filled from the store ('fill') beside the
// one that answers; live messages go to both; once filled it is written over the file and answers.

import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { SqlJsStatic } from 'sql.js';
import { loadSql } from './engine/image.js';
import { SearchDb, type CandidateQuery, type FeedItem } from './search-db.js';
import { runInBackground } from '../../threads.js';

/** What the thread is given for each store's index. */
export interface SearchWorkerData {
  /** The search database's file. */
  file: string;
  /** The store's identity: a file of another store is built again. */
  epoch: string;
  /** The store's last message seq at open: a file indexed further is from another copy of it. */
  storeSeq: number;
}

export type ToWorker =
  | { op: 'add'; items: FeedItem[] }
  | { op: 'fill'; items: FeedItem[] }
  | { op: 'edit'; item: FeedItem }
  | { op: 'forget'; ids: string[] }
  | { op: 'rebuild' }
  /** `n` numbers the swaps, so the store knows which one a 'rebuilt' answers. */
  | { op: 'swap'; n: number }
  | { op: 'query'; id: number; q: CandidateQuery }
  | { op: 'close' }
  /** Forget the store at once, writing nothing more (it was abandoned as a crash leaves it); the port closes once a write under way ended. */
  | { op: 'abandon' };

/** What the main thread posts to the thread itself: a store's index, served on its own port. */
export interface OpenIndex {
  port: MessagePort;
  data: SearchWorkerData;
}

export type FromWorker =
  | { op: 'ready'; indexed: number; note?: string }
  | { op: 'indexed'; seq: number }
  | { op: 'result'; id: number; seqs?: number[]; error?: string }
  | { op: 'rebuilt'; n: number }
  | { op: 'closed' }
  | { op: 'failed'; error: string; fatal?: boolean };

/** Messages indexed per transaction (one index segment each); more wait for the next. */
const BATCH = 1024;
/** How long fewer than BATCH messages wait to fill a segment, in ms (a query does not wait). */
const BATCH_WAIT_MS = 10;
/** Least time between two writes of the file, in ms; at least ten times the last write took. */
const PERSIST_MS = 2000;

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

class SearchWorker {
  private cur: SearchDb;
  /** The database a redaction's rebuild fills, until it replaces `cur`. */
  private next: SearchDb | undefined;
  private queue: FeedItem[] = [];
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;
  /** Whether merges may be left to do. */
  private merging = false;
  /** The file's writes, one after the other (a rebuild's rename must not be overwritten by an older export). */
  private writing: Promise<void> = Promise.resolve();
  private lastWrite = 0;
  private writeCost = 0;
  private persistTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly SQL: SqlJsStatic,
    private readonly data: SearchWorkerData,
    private readonly post: (m: FromWorker) => void,
    db: SearchDb,
  ) {
    this.cur = db;
  }

  /** The index the file holds, or a new one when it holds none this store can use. */
  static async start(SQL: SqlJsStatic, data: SearchWorkerData, post: (m: FromWorker) => void): Promise<SearchWorker> {
    let note: string | undefined;
    let db = await SearchDb.open(SQL, data.file, data.epoch, data.storeSeq);
    if (db === undefined) note = `${data.file} is damaged, unreadable or of another store: building it again from the store`;
    if (db === undefined || db === 'missing') db = SearchDb.empty(SQL, data.epoch);
    post({ op: 'ready', indexed: db.indexedSeq, ...(note ? { note } : {}) });
    return new SearchWorker(SQL, data, post, db);
  }

  handle(m: ToWorker): void {
    if (this.closed) return;
    switch (m.op) {
      case 'add':
        for (const it of m.items) this.queue.push(it);
        this.schedule();
        return;
      case 'fill':
        this.next?.add(m.items, false);
        return;
      case 'edit':
        this.flush();
        this.cur.edit(m.item);
        this.next?.edit(m.item);
        this.changed();
        return;
      case 'forget':
        this.flush();
        this.cur.forget(m.ids);
        this.next?.forget(m.ids);
        this.changed();
        return;
      case 'rebuild':
        this.flush();
        // What a rebuild under way filled may hold the message redacted since: start again.
        this.next?.close();
        this.next = SearchDb.empty(this.SQL, this.data.epoch);
        return;
      case 'swap':
        this.swap(m.n);
        return;
      case 'query':
        this.flush();
        try {
          this.post({ op: 'result', id: m.id, seqs: this.cur.candidates(m.q) });
        } catch (err) {
          this.post({ op: 'result', id: m.id, error: messageOf(err) });
        }
        return;
      case 'close':
        void this.close();
        return;
      case 'abandon':
        return; // serve() stops it, then closes the port
    }
  }

  /** Indexes the queue now (BATCH at a time), or soon when a batch is full, or after BATCH_WAIT_MS. */
  private schedule(): void {
    if (this.queue.length >= BATCH) {
      this.soon ??= setImmediate(() => {
        this.soon = undefined;
        this.flush();
      });
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, BATCH_WAIT_MS);
    }
  }

  /** Indexes everything queued, BATCH per transaction, and tells the store how far it got. */
  private flush(): void {
    if (this.queue.length === 0) return;
    const items = this.queue;
    this.queue = [];
    for (let i = 0; i < items.length; i += BATCH) {
      const batch = items.slice(i, i + BATCH);
      this.cur.add(batch, true);
      this.next?.add(batch, false);
    }
    this.post({ op: 'indexed', seq: this.cur.indexedSeq });
    this.changed();
  }

  /** After a change: merges step on while idle, and the file is written in a while. */
  private changed(): void {
    if (!this.merging) {
      this.merging = true;
      setImmediate(this.mergeStep);
    }
    this.persistTimer ??= setTimeout(
      () => {
        this.persistTimer = undefined;
        this.persist();
      },
      Math.max(PERSIST_MS - (Date.now() - this.lastWrite), 10 * this.writeCost, 0),
    );
  }

  /** One merge step per turn of this thread, so queued messages and queries go in between. */
  private readonly mergeStep = (): void => {
    if (this.closed) return;
    try {
      if (this.cur.merge() || (this.next?.merge() ?? false)) {
        setImmediate(this.mergeStep);
        return;
      }
    } catch (err) {
      this.post({ op: 'failed', error: `search merge failed: ${messageOf(err)}` });
    }
    this.merging = false;
  };

  /** Writes the answering database to the file (after any write under way); whether it was written. */
  private persist(): Promise<boolean> {
    const db = this.cur;
    const done = this.writing.then(async () => {
      if (db !== this.cur) return false;
      if (!db.dirty) return true;
      const t0 = performance.now();
      await db.write(this.data.file);
      this.lastWrite = Date.now();
      this.writeCost = performance.now() - t0;
      return true;
    });
    const settled = done.catch((err: unknown) => {
      this.post({ op: 'failed', error: `cannot write ${this.data.file}: ${messageOf(err)}` });
      return false;
    });
    this.writing = settled.then(() => {});
    return settled;
  }

  /**
   * The rebuilt database replaces the file (a durable rename), then answers searches; the store
   * hears 'rebuilt' once the file no longer holds what the old index held.
   */
  private swap(n: number): void {
    const next = this.next;
    if (!next) return;
    this.flush();
    this.next = undefined;
    const old = this.cur;
    this.cur = next;
    // A write of the old database may be under way: it reads its pages until it is done.
    void this.writing.then(() => old.close());
    next.dirty = true;
    const written = (ok: boolean): void => {
      if (this.cur !== next || this.closed) return;
      // A later swap's database replaced this one before it was written: that swap answers instead.
      if (ok) this.post({ op: 'rebuilt', n });
      // A write the disk refused (reported as 'failed'): tried again, the scrub stays pending.
      else setTimeout(() => !this.closed && void this.persist().then(written), PERSIST_MS);
    };
    void this.persist().then(written);
  }

  private async close(): Promise<void> {
    this.flush();
    this.closed = true;
    this.stopTimers();
    await this.persist();
    this.cur.close();
    this.next?.close();
    this.post({ op: 'closed' });
  }

  private stopped: Promise<void> | undefined;
  /** Stops at once, writing nothing more; settles once a write under way has ended. */
  stop(): Promise<void> {
    this.closed = true;
    this.stopTimers();
    this.stopped ??= this.writing.then(() => {
      this.cur.close();
      this.next?.close();
    });
    return this.stopped;
  }

  private stopTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.persistTimer) clearTimeout(this.persistTimer);
    if (this.soon) clearImmediate(this.soon);
  }
}

/** Serves one store's index on its port, until it closes or abandons it. */
async function serve(SQL: SqlJsStatic, { port, data }: OpenIndex): Promise<void> {
  const post = (m: FromWorker) => port.postMessage(m);
  let w: SearchWorker;
  try {
    w = await SearchWorker.start(SQL, data, post);
  } catch (err) {
    post({ op: 'failed', error: messageOf(err), fatal: true });
    port.close();
    return;
  }
  // Messages posted meanwhile wait in the port until this listener starts it.
  port.on('message', (m: ToWorker) => {
    try {
      w.handle(m);
    } catch (err) {
      post({ op: 'failed', error: messageOf(err) });
    }
    // The store hears the port close once no write of its file is under way.
    if (m.op === 'abandon') void w.stop().then(() => port.close());
  });
}

if (parentPort && workerData) {
  runInBackground();
  const sql = loadSql();
  parentPort.on('message', (open: OpenIndex) =>
    sql.then(
      (SQL) => serve(SQL, open),
      (err: unknown) => open.port.postMessage({ op: 'failed', error: messageOf(err), fatal: true } satisfies FromWorker),
    ),
  );
}
