// The in-process publisher of stored events. Plain subscribers are called synchronously in publish
// order. Queued subscribers (SSE streams, attachments) each own a bounded queue that is handed over
// once per event-loop turn; one that cannot keep up is dropped, never left to grow, and counted.

import type { StoredEvent } from '../store/types.js';

export type Subscriber = (e: StoredEvent) => void;

export interface QueueOptions {
  /** Most events that may wait while the subscriber is paused; one more drops it. */
  max: number;
  /** Most bytes (by `sizeOf`) that may wait while paused; more drops it. */
  maxBytes?: number;
  /** The size of an event in the subscriber's encoding (cached by the caller). */
  sizeOf?: (e: StoredEvent) => number;
  /** Label of the drop counter (`sse`, `attach`). */
  surface: string;
  /** Receives the events queued since the last hand-over, oldest first (an array it must not keep). */
  deliver: (batch: readonly StoredEvent[]) => void;
  /** Called once when the broker lets this subscriber go (it fell behind, or its delivery threw). */
  dropped: () => void;
  /**
   * Event types this subscriber never receives: they are not queued for it at all. Subscribers of
   * one kind share one set (the broker filters a batch once per set, not once per subscriber), so
   * an event none of them wants costs nothing per subscriber (ten thousand attachments do not
   * each take every presence event to drop it).
   */
  ignores?: ReadonlySet<string>;
}

const NONE: readonly StoredEvent[] = Object.freeze([]);

/** A queued subscriber: pause it while its socket is congested, resume it on drain. */
export class Subscription {
  /**
   * @internal What waits for the next hand-over: most often a published batch itself, shared by
   * every subscriber it went to (one array a broadcast, not one per subscriber, which was 144 bytes
   * of garbage a delivery), copied before anything is added to it.
   */
  queue: readonly StoredEvent[] = NONE;
  /** Whether `queue` is this subscription's own array (else shared: never written). */
  private owned = false;
  /** @internal */ queuedBytes = 0;
  /** @internal Its index in the broker's list; -1 once let go. */ slot = -1;
  private isPaused = false;
  private isClosed = false;

  constructor(
    /** @internal */ readonly opts: QueueOptions,
    private readonly owner: Broker,
  ) {}

  get paused(): boolean {
    return this.isPaused;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Events waiting for the next hand-over. */
  get pending(): number {
    return this.queue.length;
  }

  /** @internal Queues `events` after what waits. */
  add(events: readonly StoredEvent[]): void {
    if (this.queue.length === 0) {
      this.queue = events;
      this.owned = false;
      return;
    }
    const q = this.owned ? (this.queue as StoredEvent[]) : this.queue.slice();
    for (let k = 0; k < events.length; k++) q.push(events[k]!);
    this.queue = q;
    this.owned = true;
  }

  /** @internal Hands over what waits, leaving nothing. */
  take(): readonly StoredEvent[] {
    const batch = this.queue;
    this.queue = NONE;
    this.owned = false;
    this.queuedBytes = 0;
    return batch;
  }

  pause(): void {
    this.isPaused = true;
  }

  resume(): void {
    if (this.isClosed || !this.isPaused) return;
    this.isPaused = false;
    if (this.queue.length > 0) this.owner.scheduleFlush();
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.take();
    this.owner.detach(this);
  }
}

export class Broker {
  private readonly subscribers = new Set<Subscriber>();
  /**
   * Queued subscribers, in no order: a list walked by index, not a Set (a broadcast walks ten
   * thousand, and a Set's iterator allocated for every step of it). One leaves by swapping in the
   * last; walks go from the end, so the one swapped in was already visited.
   */
  private readonly queued: Subscription[] = [];
  /** Queued subscribers by the event types they ignore (`null`: none), for wants(). */
  private readonly byIgnores = new Map<ReadonlySet<string> | null, number>();
  private flushScheduled = false;
  private dropCount = 0;
  private readonly dropObservers = new Set<(surface: string) => void>();

  /** Tells `fn` about every drop (the broker drops metric); returns its clean-up. */
  observeDrops(fn: (surface: string) => void): () => void {
    this.dropObservers.add(fn);
    return () => this.dropObservers.delete(fn);
  }

  /** Registers a synchronous subscriber; returns its clean-up. */
  subscribe(fn: Subscriber): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  /** Registers a subscriber with its own bounded queue, flushed once per event-loop turn. */
  open(opts: QueueOptions): Subscription {
    const sub = new Subscription(opts, this);
    sub.slot = this.queued.length;
    this.queued.push(sub);
    const k = opts.ignores ?? null;
    this.byIgnores.set(k, (this.byIgnores.get(k) ?? 0) + 1);
    return sub;
  }

  /** Whether some queued subscriber open now may receive events of this type. */
  wants(type: string): boolean {
    for (const ignores of this.byIgnores.keys()) if (!ignores?.has(type)) return true;
    return false;
  }

  /** O(subscribers) per batch: a queued subscriber gets references pushed, nothing more. */
  publish(events: readonly StoredEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) for (const fn of this.subscribers) fn(e);
    if (this.queued.length === 0) return;
    // The batch as each set of ignored types leaves it, filtered once per set.
    const kept = new Map<ReadonlySet<string>, readonly StoredEvent[]>();
    let queuedAny = false;
    // From the end: a subscriber dropped here is swapped out for one already visited.
    for (let i = this.queued.length - 1; i >= 0; i--) {
      const sub = this.queued[i]!;
      const { sizeOf, maxBytes, ignores } = sub.opts;
      let mine = events;
      if (ignores) {
        let k = kept.get(ignores);
        if (!k) kept.set(ignores, (k = events.filter((e) => !ignores.has(e.event.type))));
        mine = k;
      }
      if (mine.length === 0) continue;
      queuedAny = true;
      sub.add(mine);
      if (sizeOf) for (let k = 0; k < mine.length; k++) sub.queuedBytes += sizeOf(mine[k]!);
      // A subscriber that is not paused is emptied this very turn, so only a paused one can fall behind.
      if (sub.paused && (sub.queue.length > sub.opts.max || (maxBytes !== undefined && sub.queuedBytes > maxBytes))) this.drop(sub);
    }
    if (queuedAny) this.scheduleFlush();
  }

  /** Queued subscribers (the only ones that ask for an event's audience). */
  get queuedSize(): number {
    return this.queued.length;
  }

  /** Subscribers of both kinds. */
  get size(): number {
    return this.subscribers.size + this.queued.length;
  }

  /** Queued subscribers dropped since start. */
  get drops(): number {
    return this.dropCount;
  }

  /** @internal */
  scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** @internal */
  detach(sub: Subscription): void {
    if (sub.slot < 0) return;
    const last = this.queued.pop()!;
    if (last !== sub) {
      this.queued[sub.slot] = last;
      last.slot = sub.slot;
    }
    sub.slot = -1;
    const k = sub.opts.ignores ?? null;
    const left = (this.byIgnores.get(k) ?? 1) - 1;
    if (left > 0) this.byIgnores.set(k, left);
    else this.byIgnores.delete(k);
  }

  private flush(): void {
    this.flushScheduled = false;
    // From the end (see `queued`); a subscriber a delivery lets go may move one visited already
    // back in front, and its queue is empty by then.
    for (let i = this.queued.length - 1; i >= 0; i--) {
      const sub = this.queued[i]!;
      if (sub.paused || sub.queue.length === 0) continue;
      const batch = sub.take();
      try {
        sub.opts.deliver(batch);
      } catch {
        // One subscriber's failure must not keep the others from their events; it is let go as if
        // dropped (so it can recover), but it did not fall behind, so it is not counted.
        sub.close();
        sub.opts.dropped();
      }
    }
  }

  private drop(sub: Subscription): void {
    sub.close();
    this.dropCount++;
    for (const fn of this.dropObservers) fn(sub.opts.surface);
    sub.opts.dropped();
  }
}
