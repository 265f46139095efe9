// The live side of one app: the replay buffer, the highest durable (published) sequence, the
// per-event audience cache, the open streams and attachments, and durable agent events.

import type { Metrics } from '../metrics.js';
import { commit, type NetworkContext } from '../network/context.js';
import { ReplayBuffer } from '../events/replay-buffer.js';
import type { ServiceEvent } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';
import { resolveAudience, type Audience } from './visibility.js';

/** Something the hub closes on shutdown (an SSE stream, an attachment). */
export interface Closable {
  close(): Promise<void> | void;
}

export class LiveHub {
  readonly buffer: ReplayBuffer;
  /** Highest sequence the broker has published: everything up to it is durable. */
  publishedSeq: number;
  /** Open SSE streams and attachments. */
  readonly open = new Set<Closable>();
  /** Attached agents by id (one active attachment per agent). */
  readonly attached = new Map<string, { credentialKey: string }>();
  private readonly audiences = new WeakMap<StoredEvent, Audience>();
  private readonly pending = new Set<Promise<void>>();
  private readonly unsubscribe: () => void;
  private closing = false;

  constructor(
    readonly net: NetworkContext,
    readonly metrics: Metrics,
  ) {
    this.buffer = new ReplayBuffer(net.config.server.event_buffer);
    this.publishedSeq = net.store.lastEventSeq();
    metrics.brokerDrops.inc({ surface: 'sse' }, 0);
    metrics.brokerDrops.inc({ surface: 'attach' }, 0);
    net.broker.onDrop = (surface) => metrics.brokerDrops.inc({ surface });
    const published = metrics.eventsPublished.series();
    this.unsubscribe = net.broker.subscribe((e) => {
      if (e.seq > this.publishedSeq) this.publishedSeq = e.seq;
      this.buffer.push(e);
      published.inc();
    });
  }

  get closed(): boolean {
    return this.closing;
  }

  /** The event's audience; cached per live event, or read fresh for replays (`fresh`). */
  audienceOf(e: StoredEvent, fresh = false): Audience {
    if (fresh) return resolveAudience(this.net.store, this.net.config.network.id, e.event);
    let a = this.audiences.get(e);
    if (!a) {
      a = resolveAudience(this.net.store, this.net.config.network.id, e.event);
      this.audiences.set(e, a);
    }
    return a;
  }

  /** Stores and publishes agent events; a store failure is logged, never thrown at a socket. */
  emit(events: ServiceEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const p = commit(
      this.net,
      events.map((event) => ({ op: 'event.append' as const, event })),
    ).then(
      () => undefined,
      (err: unknown) => this.net.log('warn', 'could not store live events', { types: events.map((e) => e.type).join(','), error: (err as Error).message }),
    );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }

  /** Ends every stream and attachment, then waits for their last events to be stored. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.open].map((c) => c.close()));
    await Promise.all([...this.pending]);
    this.unsubscribe();
  }
}
