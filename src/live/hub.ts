// The live side of one app: the replay buffer, the highest durable (published) sequence, the
// per-event audience cache, the open streams and attachments, and durable agent events.

import type { LiveEvent } from '../feature.js';
import type { Metrics } from '../metrics-registry.js';
import { commit, type NetworkContext } from '../network/context.js';
import { ReplayBuffer } from '../events/replay-buffer.js';
import type { ServiceEvent } from '../protocol/types.js';
import { convKeyOf, type StoredEvent } from '../store/types.js';
import type { AttachHolder } from './attach/holder.js';
import { deliverySettings } from '../network/delivery.js';
import { RedeliveryTimer, redeliveryTickMs } from './attach/redeliver.js';
import { RecentEvents } from './recent-events.js';
import { UNKNOWN_AUDIENCE, asOfEvents, attachmentIgnores, batchReads, resolveAudience, type Audience } from './visibility.js';

/** Something the hub closes on shutdown (an SSE stream, an attachment). */
export interface Closable {
  close(): Promise<void> | void;
}

/** Newest events held for attachments' catch-ups (several seconds of a busy network). */
const RECENT_EVENTS = 4096;

export class LiveHub {
  readonly buffer: ReplayBuffer;
  /** Highest sequence the broker has published: everything up to it is durable. */
  publishedSeq: number;
  /** Open SSE streams and attachments. */
  readonly open = new Set<Closable>();
  /** Who holds each attached agent's attachment here (named when another runtime is refused). */
  readonly holders = new Map<string, AttachHolder>();
  /** Open SSE streams per client address (the per-address cap). */
  readonly sseByAddress = new Map<string, number>();
  /** Sends attachments' unacknowledged wakes again (server.delivery). */
  readonly redelivery: RedeliveryTimer;
  /** The newest published events of the types attachments receive, for their catch-ups (recent-events.ts). */
  readonly recent = new RecentEvents(RECENT_EVENTS);
  private readonly audiences = new WeakMap<StoredEvent, Audience>();
  private readonly pending = new Set<Promise<void>>();
  private readonly unsubscribe: () => void;
  private closing = false;

  constructor(
    readonly ctx: NetworkContext,
    readonly metrics: Metrics,
    /** The event types the running features add (asked each time: the app combines them only once every feature is built). */
    private readonly declared: () => readonly LiveEvent[],
  ) {
    this.buffer = new ReplayBuffer(ctx.config.server.event_buffer, (e) => this.supersedes(e));
    this.redelivery = new RedeliveryTimer(() => redeliveryTickMs(deliverySettings(this.ctx.config).redeliver_after_ms));
    this.publishedSeq = ctx.store.feed.head;
    this.unsubscribe = ctx.broker.subscribe((e) => {
      if (e.seq > this.publishedSeq) this.publishedSeq = e.seq;
      this.buffer.push(e);
      if (!this.attachmentIgnores.has(e.event.type)) this.recent.push(e);
      if (e.event.type === 'message.redacted' && e.event.message) {
        this.buffer.scrub(e.event.message);
        this.recent.scrub(e.event.message);
      }
    });
  }

  get closed(): boolean {
    return this.closing;
  }

  /** The key under which `e` replaces its conversation's one before, when its declared type says so. */
  private supersedes(e: ServiceEvent): string | undefined {
    const d = this.declared().find((x) => x.type === e.type);
    const target = d?.replacesItsLast ? d.target(e) : undefined;
    return target && `${e.type} ${convKeyOf(target)}`;
  }

  /** The event types attachments never receive (visibility.ts). */
  get attachmentIgnores(): ReadonlySet<string> {
    return attachmentIgnores(this.declared());
  }

  /**
   * Resolves and caches the audiences of events before they are delivered (the feed pump runs this
   * before publishing; store catch-up runs it on each page); `only` those of them, when given (the
   * membership changes among all of them still set each one's members as of itself).
   */
  readonly prepare = async (events: readonly StoredEvent[], only: readonly StoredEvent[] = events): Promise<void> => {
    // Events prepared before (a catch-up page of the hub's newest events) keep the audiences their
    // publication judged: judging them again per catch-up rebuilt, for every attachment, the member
    // lists of each room changed in the page.
    const todo = only.filter((e) => !this.audiences.has(e));
    if (todo.length === 0) return;
    // All at once and each record read once per batch: one store read per event in turn is a round
    // trip each on Postgres, which held the feed to a few hundred events/s (seconds of lag).
    const store = batchReads(this.ctx.store, events);
    const net = this.ctx.config.network.id;
    const declared = this.declared();
    await Promise.all(todo.map(async (e) => this.audiences.set(e, await resolveAudience(store, net, e.event, declared))));
    asOfEvents(net, events, this.audiences);
  };

  /**
   * The feed pump's preparer. Only queued subscribers (streams, attachments) ask for the audience
   * of a published event, and a queued subscriber gets only what is published after it opened:
   * events no open one may receive are not read for (with only attachments open, presence events
   * are not: their audience reads every room). With nothing to read it answers synchronously, and
   * the pump publishes in the same step, so no subscriber can open in between; when it reads, a
   * subscriber that opened meanwhile may want more, which is read before it answers.
   */
  readonly preparePublished = (events: readonly StoredEvent[]): Promise<void> | undefined => {
    const todo = this.unprepared(events);
    return todo.length === 0 ? undefined : this.prepareAll(events, todo);
  };

  private unprepared(events: readonly StoredEvent[]): StoredEvent[] {
    const { broker } = this.ctx;
    if (broker.queuedSize === 0) return [];
    return events.filter((e) => !this.audiences.has(e) && broker.wants(e.event.type));
  }

  private async prepareAll(events: readonly StoredEvent[], todo: StoredEvent[]): Promise<void> {
    while (todo.length > 0) {
      await this.prepare(events, todo);
      todo = this.unprepared(events);
    }
  }

  /** The audience of a prepared event. */
  audienceOf(e: StoredEvent): Audience {
    return this.audiences.get(e) ?? UNKNOWN_AUDIENCE;
  }

  /** The audience as the store says now (replays: membership may have changed since). */
  freshAudienceOf(e: StoredEvent): Promise<Audience> {
    return resolveAudience(this.ctx.store, this.ctx.config.network.id, e.event, this.declared());
  }

  /** Stores and publishes agent events; a store failure is logged, never thrown at a socket. */
  emit(events: ServiceEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const p = commit(
      this.ctx,
      events.map((event) => ({ op: 'event.append' as const, event })),
    ).then(
      () => undefined,
      (err: unknown) =>
        this.ctx.log('warn', 'could not store live events', { types: events.map((e) => e.type).join(','), error: (err as Error).message }),
    );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }

  /** Ends every stream and attachment, then waits for their last events to be stored. */
  async close(): Promise<void> {
    this.closing = true;
    this.redelivery.stop();
    await Promise.all([...this.open].map((c) => c.close()));
    await Promise.all([...this.pending]);
    this.unsubscribe();
  }
}
