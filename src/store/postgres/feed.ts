// The event feed of a store shared by several processes. Stored events are read by cursor (seq >
// the last delivered) whenever something may have been stored: this process committed a write
// (its own events are handed over directly when nothing is missing before them), another instance
// did (LISTEN/NOTIFY; a group commit's payload carries its events, delivered without a read when
// nothing is missing before them: notify-payload.ts), the listening connection came back (a lost
// notification loses nothing), or a slow timer fired. Sequence numbers are committed in order
// (write.ts), so the next event is either stored or not yet committed: never skipped. Only a
// retention purge leaves holes, below events stored after them, which a read shows (drainEarly).

import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { EventFeed, FeedSubscription, StoredEvent } from '../types.js';
import { FeedSubscribers } from '../feed-subscribers.js';
import { quoteIdent } from './schema.js';
import { CarriedRooms, eventsOf, lastOf } from './notify-payload.js';

export type ReadEvents = (after: number, limit: number) => Promise<StoredEvent[]>;

export interface FeedOptions {
  read: ReadEvents;
  /** The highest stored seq at start. */
  head: number;
  /** Connection settings for the listening connection. */
  connection: pg.ClientConfig;
  channel: string;
  log: (msg: string) => void;
  /** Safety poll period; a notification or a write normally wakes the feed first. */
  pollMs?: number;
  /** Whether a database backend (by process id) is one of this process's own connections. */
  ownBackend?: (pid: number) => boolean;
}

const PAGE = 512;
/**
 * Least time between the starts of reads that other instances' notifications ask for. Under load a
 * notification comes every millisecond or so; reading at each one hands live delivery batches of
 * a few events, and every batch costs a socket write to each attached client. Spaced reads make
 * fuller batches for at most this much latency; a notification after a quiet spell is read at once.
 * (Measured in the cross-instance benchmark row: the subscribing instance's CPU per message 580 ->
 * 380-400 µs, the machine's idle share 5% -> 17-22%; 5 ms saved less, 15 ms added latency.)
 */
export const NOTIFIED_READ_GAP_MS = 10;
const RECONNECT_MIN_MS = 200;
const RECONNECT_MAX_MS = 5000;
/** What an instance notifies, with an id of its own, as it begins listening, and in answer to another's (see `othersListen`). */
const HELLO = 'hello ';
const HERE = 'here ';

export class PgFeed implements EventFeed {
  private delivered: number;
  private readonly subs: FeedSubscribers;
  /** This process's committed events waiting for lower ones to be read. */
  private readonly early = new Map<number, StoredEvent>();
  /** The rooms notifications carried, parsed once per text. */
  private readonly rooms = new CarriedRooms();
  private readonly waiters = new Set<{ seq: number; resolve: () => void }>();
  private pumping = false;
  /** The highest seq announced by this process's own commits whose writes have not settled. */
  private ownNotified = 0;
  /** The last read stopped at an event of this process's write in flight; its unexpect() reads on. */
  private heldBack = false;
  private again = false;
  private listener: pg.Client | undefined;
  private reconnectMs = RECONNECT_MIN_MS;
  private readonly timers = new Set<NodeJS.Timeout>();
  private poll: NodeJS.Timeout | undefined;
  private closed = false;
  private readFailing = false;
  /** performance.now() when the last read started. */
  private lastRead = -Infinity;
  /** A notification's read is waiting for the gap to pass. */
  private notifiedPending = false;
  /** Whether the listening connection is up (doctor, tests). */
  listening = false;
  /** Reads of new events from the database so far (tests). */
  reads = 0;
  /** Events delivered from notification payloads, without a read (tests). */
  carried = 0;
  /**
   * Whether another instance listens on this schema: it greeted this one (as it began listening,
   * or in answer to this one's greeting), or it writes. Until then a group commit's notification
   * carries its seq alone (nobody else would read its events): an instance on its own pays nothing
   * for them.
   */
  othersListen = false;
  /** This feed's id in its greetings (its own come back to it). */
  private readonly id = randomUUID();

  constructor(private readonly o: FeedOptions) {
    this.delivered = o.head;
    this.subs = new FeedSubscribers(
      o.read,
      () => this.delivered,
      (err) => o.log(`store: an event feed subscriber failed: ${err.message}`),
    );
  }

  get head(): number {
    return this.delivered;
  }

  /** Connects the listener and starts the safety poll. */
  async start(): Promise<void> {
    await this.connect();
    this.poll = setInterval(() => this.wake(), this.o.pollMs ?? 2000);
    this.poll.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
    const l = this.listener;
    this.listener = undefined;
    this.listening = false;
    await l?.end().catch(() => {});
  }

  /** Ids of events this process is writing: a read that meets one waits for publish() to hand over its object. */
  private readonly expected = new Map<string, number>();

  expect(ids: readonly string[]): void {
    for (const id of ids) this.expected.set(id, (this.expected.get(id) ?? 0) + 1);
  }

  /** The write settled (stored and published, or failed): its events no longer hold reads back. */
  unexpect(ids: readonly string[]): void {
    let any = false;
    for (const id of ids) {
      const n = this.expected.get(id);
      if (n === undefined) continue;
      // A read only waits for this write if it met one of its events (held back).
      any ||= this.heldBack;
      if (n <= 1) this.expected.delete(id);
      else this.expected.set(id, n - 1);
    }
    // An own commit announced but not handed over (its answer was lost): read it once no write is
    // in flight. While writes keep coming, the next one handed over shows the gap (publish()).
    let unexplained = false;
    if (this.expected.size === 0) {
      unexplained = this.ownNotified > this.delivered;
      this.ownNotified = 0;
    }
    if (any || unexplained || this.early.size > 0) this.wake();
  }

  /** Hands over events this process committed; delivers them once nothing before them is missing. */
  publish(events: readonly StoredEvent[]): void {
    for (const e of events) if (e.seq > this.delivered) this.early.set(e.seq, e);
    this.drainEarly();
    if (this.early.size > 0) this.wake();
  }

  /** Resolves once every event up to `seq` has been delivered, or after `ms` (the feed catches up later). */
  reached(seq: number, ms: number): Promise<void> {
    if (this.delivered >= seq || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const w = {
        seq,
        resolve: () => {
          clearTimeout(t);
          this.timers.delete(t);
          this.waiters.delete(w);
          resolve();
        },
      };
      const t = setTimeout(w.resolve, ms);
      this.timers.add(t);
      this.waiters.add(w);
    });
  }

  /** A read for another instance's commit: at once, or when the last read is NOTIFIED_READ_GAP_MS old. */
  private wakeNotified(): void {
    if (this.notifiedPending) return;
    const wait = this.lastRead + NOTIFIED_READ_GAP_MS - performance.now();
    if (wait <= 0) return this.wake();
    this.notifiedPending = true;
    this.later(() => {
      this.notifiedPending = false;
      this.wake();
    }, wait);
  }

  /** Reads new events by cursor soon (coalesced: one read at a time). */
  wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    void this.pump();
  }

  subscribe(fromSeq: number, onEvents: (events: StoredEvent[]) => void, onError?: (err: Error) => void): FeedSubscription {
    return this.subs.subscribe(fromSeq, onEvents, onError);
  }

  // A commit is durable as it is seen: nothing wakes before the feed delivers, nothing is undone.
  readonly rollbacks = 0;
  onWritten(afterSeq: number, wake: () => void, onError?: (err: Error) => void): FeedSubscription {
    return this.subs.wakeOnce(afterSeq, wake, onError);
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.again = false;
        this.heldBack = false;
        for (;;) {
          this.reads++;
          this.lastRead = performance.now();
          const page = await this.o.read(this.delivered, PAGE);
          if (this.closed) return;
          const fresh = page.filter((e) => e.seq > this.delivered);
          let held = false;
          // Every event up to here that is stored was in this read (commits come in seq order).
          let read = fresh.length > 0 ? fresh[fresh.length - 1]!.seq : 0;
          for (const e of fresh) {
            // This process's own write, committed but not yet returned: its publish() follows.
            if (this.expected.has(e.event.id)) {
              held = true;
              this.heldBack = true;
              read = e.seq - 1;
              break;
            }
            if (!this.early.has(e.seq)) this.early.set(e.seq, e);
          }
          this.drainEarly(read);
          if (held || page.length < PAGE) break;
        }
      } while (this.again && !this.closed);
      if (this.readFailing) this.o.log('store: event feed reads new events again');
      this.readFailing = false;
    } catch (err) {
      // The database is unreachable: try again shortly; nothing is skipped meanwhile. One line
      // per outage, not one per attempt.
      if (!this.readFailing) this.o.log(`store: event feed cannot read new events (retrying): ${(err as Error).message}`);
      this.readFailing = true;
      this.later(() => this.wake(), 500);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Delivers the contiguous run after `delivered` held in `early`. Seqs up to `read` (a read of the
   * database reached it) missing from `early` are no longer stored: a retention purge removed
   * their events (store/write-ops.ts, message.purge), and the run goes on past them.
   */
  private drainEarly(read = 0): void {
    const batch: StoredEvent[] = [];
    for (const seq of [...this.early.keys()]) if (seq <= this.delivered) this.early.delete(seq);
    for (;;) {
      const e = this.early.get(this.delivered + 1);
      if (e) {
        this.early.delete(e.seq);
        batch.push(e);
        this.delivered = e.seq;
        continue;
      }
      if (this.delivered >= read) break;
      let next = read + 1;
      for (const seq of this.early.keys()) if (seq < next) next = seq;
      this.delivered = next - 1;
    }
    if (batch.length > 0) this.subs.deliver(batch);
    for (const w of [...this.waiters]) if (w.seq <= this.delivered) w.resolve();
  }

  private later(fn: () => void, ms: number): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.o.connection);
    const lost = (why: string) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listening = false;
      client.end().catch(() => {});
      if (this.closed) return;
      if (this.reconnectMs === RECONNECT_MIN_MS) this.o.log(`store: event feed lost its listening connection (${why}); reconnecting`);
      this.later(() => void this.reconnect(), this.reconnectMs);
      this.reconnectMs = Math.min(RECONNECT_MAX_MS, this.reconnectMs * 2);
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('closed'));
    // The payload starts with the committing transaction's last seq (notify-payload.ts): one this
    // process already delivered needs nothing. Nor does one its own connection sent while a write
    // is in flight: that is the write's own commit, whose answer (on another connection) may simply
    // arrive after the notification; the write hands its events over (publish()), and unexpect()
    // reads whatever was announced and not handed over. Another instance's group commit carries its
    // events: they are delivered from the payload once nothing before them is missing, and only a
    // gap (a notification without events, or one lost while the connection was down) is read.
    client.on('notification', (msg) => {
      const payload = msg.payload ?? '';
      const greeting = payload.startsWith(HELLO) ? HELLO : payload.startsWith(HERE) ? HERE : undefined;
      if (greeting) {
        if (payload.slice(greeting.length) === this.id) return;
        this.othersListen = true;
        // A newcomer's HELLO is answered, so it learns of the instances that listened before it.
        if (greeting === HELLO) void this.greet(client, HERE).catch(() => {});
        return;
      }
      if (!this.o.ownBackend?.(msg.processId)) this.othersListen = true;
      const last = lastOf(payload);
      if (Number.isSafeInteger(last) && last > 0) {
        if (last <= this.delivered) return;
        if (this.expected.size > 0 && this.o.ownBackend?.(msg.processId)) {
          this.ownNotified = Math.max(this.ownNotified, last);
          return;
        }
        const events = eventsOf(payload, last, this.rooms);
        if (events) {
          for (const e of events) {
            if (e.seq <= this.delivered || this.early.has(e.seq)) continue;
            this.early.set(e.seq, e);
            this.carried++;
          }
          this.drainEarly();
          // What is still missing below them is this process's own write in flight (its publish()
          // or unexpect() reads on), or was never carried: read it.
          if (this.early.size === 0 || this.expected.size > 0) return;
        }
      }
      this.wakeNotified();
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(this.o.channel)}`);
      // The instances already listening learn that one more reads their notifications.
      await this.greet(client, HELLO);
    } catch (err) {
      lost((err as Error).message);
      throw err;
    }
    this.listening = true;
    this.reconnectMs = RECONNECT_MIN_MS;
    // Whatever was stored while nobody listened is read by cursor.
    this.wake();
  }

  private async greet(client: pg.Client, greeting: string): Promise<void> {
    await client.query('SELECT pg_notify($1, $2)', [this.o.channel, greeting + this.id]);
  }

  private async reconnect(): Promise<void> {
    try {
      await this.connect();
    } catch {
      // lost() scheduled the next attempt
    }
  }
}
