// The outbound gateway's reading of the event feed (#42 part 3): a live event is a wake-up, not a
// delivery guarantee, so wakes are taken from the store by a cursor, not from the live events
// themselves. The cursor (kv kind `a2a_cursor`, one row per network) is the last event seq whose
// wakes were claimed; a drain reads the events after it, hands each to `take` (which claims the
// wakes in it: see feature.ts), then stores the new cursor. A drain runs at start, on every live
// event (another instance's arrive after the feed reconnects, since the feed catches up by its
// own cursor), and on a timer for the rest. So a mention stored while no instance ran, or that
// reached no observer, is sent once the gateway runs again. Bounded: after a long stop only the
// last MAX_BACKLOG events are read (the rest are logged as skipped); `take` skips old wakes.

import type { Store, StoredEvent } from '../../store/types.js';

const CURSOR_KIND = 'a2a_cursor';
/** Events read per store query. */
const BATCH = 500;
/** Most events read after a stop; older ones are skipped (and logged) instead of read. */
const MAX_BACKLOG = 20_000;

export interface FeedDeps {
  store: () => Store;
  network: () => string;
  /** Claims the wakes an event holds (starting their calls); false: not taken (closing), stop before it. */
  take: (e: StoredEvent) => Promise<boolean>;
  log: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void;
}

export class WakeFeed {
  private seq: number | undefined;
  private loading: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly d: FeedDeps) {}

  /** Starts a drain, or asks the running one to read again when it ends. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Stops reading; resolves when a running drain has stored its cursor. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** The running drain (tests and close wait for it). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Reads the stored cursor (once; again after a failure). A first start begins at the end of the log: what came before was never this gateway's. */
  begin(): Promise<void> {
    this.loading ??= (async () => {
      const store = this.d.store();
      const id = this.d.network();
      const row = await store.kv.get(CURSOR_KIND, id);
      if (row) this.seq = Number(row.value);
      else {
        this.seq = await store.lastEventSeq();
        await store.kv.put({ kind: CURSOR_KIND, id, value: String(this.seq) });
      }
    })().catch((err) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  private async drain(): Promise<void> {
    try {
      const store = this.d.store();
      const id = this.d.network();
      await this.begin();
      const head = await store.lastEventSeq();
      let seq = this.seq!;
      if (head - seq > MAX_BACKLOG) {
        this.d.log('warn', 'A2A wakes skipped: too many events since the gateway last ran', {
          skipped_events: head - MAX_BACKLOG - seq,
          from_seq: seq + 1,
          to_seq: head - MAX_BACKLOG,
        });
        seq = head - MAX_BACKLOG;
      }
      while (!this.stopped) {
        const batch = await store.eventsAfter(seq, BATCH);
        if (batch.length === 0) break;
        for (const e of batch) {
          if (this.stopped || !(await this.d.take(e))) break;
          seq = e.seq;
        }
        await this.save(store, id, seq);
        if (batch.length < BATCH || seq !== batch[batch.length - 1]!.seq) break;
      }
      await this.save(store, id, seq);
    } catch (err) {
      this.d.log('warn', 'A2A wakes could not be read from the store', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async save(store: Store, id: string, seq: number): Promise<void> {
    if (seq === this.seq) return;
    // Another instance may have moved it further: the cursor never goes back.
    const row = await store.kv.get(CURSOR_KIND, id);
    const stored = row ? Number(row.value) : 0;
    if (seq > stored) await store.kv.put({ kind: CURSOR_KIND, id, value: String(seq) });
    this.seq = seq;
  }
}
