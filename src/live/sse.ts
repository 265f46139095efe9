// GET /v1/events/stream: pure frame formatting, and the stream (replay from the in-memory buffer
// or the store's pages as the socket drains, then live events from a bounded broker queue,
// keep-alive comments, drop when it falls behind; a per-address cap on open streams).

import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import { clientAddress } from '../http/token-buckets.js';
import { newId } from '../protocol/ids.js';
import type { EventType, ServiceEvent } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';
import type { RequestContext, Route } from '../http/router.js';
import { eventJson } from './encode.js';
import type { LiveHub } from './hub.js';
import { liveViewerOf, viewerSees, type Audience } from './visibility.js';

/** Reconnect delay suggested to EventSource clients. */
export const RETRY_MS = 3000;
/** Most events, and bytes of event JSON, waiting for a paused (congested) stream before it is dropped. */
export const SSE_QUEUE_MAX = 1024;
export const SSE_QUEUE_MAX_BYTES = 4 * 1024 * 1024;
/** Replay frames are handed to the socket in chunks of about this size. */
const REPLAY_CHUNK_BYTES = 64 * 1024;
/** Replay bytes formatted per event-loop turn before yielding. */
const REPLAY_TURN_BYTES = 1024 * 1024;
/** Keep-alive comments at least this often, so proxies keep an idle stream open. */
const KEEPALIVE_MAX_MS = 15_000;

/**
 * One SSE frame: `id:`, `event:` and `data:` lines and a blank line. JSON has no raw line breaks,
 * so the data is always one line. `withId: false` leaves the client's Last-Event-ID unchanged.
 */
export function formatEvent(e: ServiceEvent, json: string = JSON.stringify(e), withId = true): string {
  return `${withId ? `id: ${e.id}\n` : ''}event: ${e.type}\ndata: ${json}\n\n`;
}

const frames = new WeakMap<StoredEvent, string>();

/** The SSE frame of a stored event, formatted once for every stream. */
export function sseFrame(e: StoredEvent): string {
  let s = frames.get(e);
  if (s === undefined) {
    s = formatEvent(e.event, eventJson(e.event));
    frames.set(e, s);
  }
  return s;
}

/** A comment frame (ignored by clients; keeps the connection busy). */
export function formatComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export function formatRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

/** Optional stream filters: `room_id=R` and `type=T[,T...]` (repeatable). */
export interface StreamFilter {
  room?: string;
  types?: ReadonlySet<string>;
}

export function filterOf(q: URLSearchParams): StreamFilter {
  const room = q.get('room_id') ?? undefined;
  const types = q
    .getAll('type')
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  return { ...(room ? { room } : {}), ...(types.length ? { types: new Set(types) } : {}) };
}

function matches(f: StreamFilter, e: ServiceEvent, a: Audience): boolean {
  if (f.types && !f.types.has(e.type)) return false;
  if (f.room !== undefined && a.room?.id !== f.room) return false;
  return true;
}

/** The route; the router has already authenticated (header or console cookie) and authorized it. */
export function sseRoute(hub: LiveHub): Route {
  return { method: 'GET', path: '/v1/events/stream', action: 'events.stream', raw: true, handler: (c) => openStream(hub, c) };
}

/** The per-address cap on open streams (config `server.limits.sse_streams_per_address`; 0 = none). */
export const SSE_STREAMS_PER_ADDRESS = 32;

function openStream(hub: LiveHub, c: RequestContext): void {
  const { req, res, url, principal } = c;
  const ctx = hub.ctx;
  // Refused before the stream opens, as an ordinary error envelope: one address cannot hold
  // thousands of streams (each may keep a few MiB of waiting events).
  const address = clientAddress(req);
  const cap = ctx.config.server.limits.sse_streams_per_address ?? SSE_STREAMS_PER_ADDRESS;
  const open = hub.sseByAddress.get(address) ?? 0;
  if (cap > 0 && open >= cap) {
    throw new AppError(
      'too_many_requests',
      `this address already has ${open} open event streams (server.limits.sse_streams_per_address is ${cap}); close one first`,
      { 'retry-after': '5' },
    );
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  if (req.method === 'HEAD' || hub.closed) {
    res.end();
    return;
  }
  hub.sseByAddress.set(address, open + 1);
  const lv = liveViewerOf(principal, ctx.config.auth);
  const filter = filterOf(url.searchParams);
  const localNet = ctx.config.network.id;
  const seesWith = (e: StoredEvent, a: Audience) => matches(filter, e.event, a) && viewerSees(lv, a, localNet);
  const sees = (e: StoredEvent) => seesWith(e, hub.audienceOf(e));

  // The replay range and the subscription are fixed in one turn: what was published before is in
  // the buffer below `end`, what is published after lands in the queue; nothing falls between or
  // arrives twice.
  let head = formatRetry(RETRY_MS);
  const header = req.headers['last-event-id'];
  const last = (typeof header === 'string' ? header : undefined) ?? url.searchParams.get('last_event_id') ?? undefined;
  const buffer = hub.buffer;
  let from = buffer.end;
  const gapFrame = () => {
    const gap = { id: newId('evt'), type: 'stream.replay_gap' as EventType, network_id: localNet, created_at: new Date().toISOString() };
    return formatEvent(gap, JSON.stringify(gap), false);
  };
  /** The event is not buffered here but the store can find it (another instance's stream, or older than this process). */
  let fromStore = false;
  if (last) {
    const after = buffer.indexAfter(last.trim());
    if (after === undefined && ctx.store.eventSeq) fromStore = true;
    else {
      if (after === undefined) head += gapFrame();
      from = after ?? buffer.start;
    }
  } else {
    head += formatComment('connected');
  }
  const replay = { next: from, end: buffer.end, generation: buffer.generation };
  res.write(head);
  /** Highest seq written or passed over by a replay: live events it covered are not sent again. */
  let sentSeq = 0;

  // An agent's own stream hands it the live messages it writes (network/reached.ts).
  const received =
    principal.kind === 'agent' ? ctx.extensions.reached.stream(principal.agentId, last ? undefined : hub.publishedSeq) : undefined;
  const onDrain = () => sub.resume();
  const sub = ctx.broker.open({
    max: SSE_QUEUE_MAX,
    maxBytes: SSE_QUEUE_MAX_BYTES,
    sizeOf: (e) => eventJson(e.event).length,
    surface: 'sse',
    deliver: (batch) => {
      let chunk = '';
      for (const e of batch) {
        if (e.seq <= sentSeq) continue;
        sentSeq = e.seq;
        if (sees(e)) {
          chunk += sseFrame(e);
          received?.sent(e);
        }
      }
      if (chunk && !res.write(chunk, received?.written)) {
        sub.pause();
        res.once('drain', onDrain);
      }
    },
    // Fell behind: cut it; the client reconnects with Last-Event-ID and replays from the buffer.
    dropped: () => res.destroy(),
  });

  // Every replay (the buffer's, or the store's page by page) is written as the socket drains, a
  // few events in hand at a time, with live events waiting in the queue meanwhile (under the same
  // cap as any paused stream). A stream that never reads holds at most a chunk, a store page and
  // its socket buffer, never the replay. A buffer replay whose next event has left the buffer
  // cannot continue without a hole: cut, and the client resumes.
  let source: ReplaySource = bufferSource(hub, replay);
  let held: Replayed[] = [];
  const pump = async (): Promise<void> => {
    if (res.destroyed || res.writableEnded || sub.closed) return;
    let chunk = '';
    let turnBytes = 0;
    for (;;) {
      if (held.length === 0) {
        const next = await source();
        if (res.destroyed || sub.closed) return;
        if (next === undefined) {
          res.destroy();
          return;
        }
        if (next.length === 0) break;
        held = next;
      }
      const { e, a } = held.shift()!;
      if (e.seq > sentSeq) sentSeq = e.seq;
      // Replayed events are judged by the rooms and DMs as they are now.
      if (!seesWith(e, a)) continue;
      const frame = sseFrame(e);
      chunk += frame;
      turnBytes += frame.length;
      if (chunk.length >= REPLAY_CHUNK_BYTES) {
        const more = res.write(chunk);
        chunk = '';
        if (!more) {
          res.once('drain', resumeReplay);
          return;
        }
      }
      // Long replays yield so one stream cannot hold the event loop (health probes, other sends).
      if (turnBytes >= REPLAY_TURN_BYTES) {
        if (chunk && !res.write(chunk)) res.once('drain', resumeReplay);
        else setImmediate(resumeReplay);
        return;
      }
    }
    if (chunk && !res.write(chunk)) {
      res.once('drain', onDrain);
      return;
    }
    sub.resume();
  };
  const resumeReplay = () => void pump().catch(() => res.destroy());
  if (fromStore) {
    sub.pause();
    void replayStored().catch(() => res.destroy());
  } else if (replay.next < replay.end) {
    sub.pause();
    resumeReplay();
  }

  /**
   * Replays from the store what followed the client's last event (up to a buffer's worth), page
   * by page; the live queue, paused meanwhile, then skips what the replay covered. Past that much,
   * or when the store does not know the event: a gap, and the buffer's replay as usual.
   */
  async function replayStored(): Promise<void> {
    const seq = await ctx.store.eventSeq!(last!.trim());
    if (res.destroyed || sub.closed) return;
    // Event sequences have no holes, so the distance to the newest is the count that followed.
    const newest = Math.max(hub.publishedSeq, ctx.store.feed.head);
    if (seq === undefined || newest - seq > ctx.config.server.event_buffer) {
      res.write(gapFrame());
      Object.assign(replay, { next: buffer.start, end: buffer.end, generation: buffer.generation });
    } else {
      source = storeSource(hub, seq);
    }
    resumeReplay();
  }

  const every = Math.min(KEEPALIVE_MAX_MS, ctx.config.server.heartbeat_interval_ms);
  const keepAlive = setInterval(() => {
    if (!sub.paused) res.write(formatComment('keep-alive'));
  }, every);
  keepAlive.unref();

  hub.metrics.sseSubscribers.inc();
  const stream = { close: () => endStream(res) };
  hub.open.add(stream);
  res.once('close', () => {
    clearInterval(keepAlive);
    sub.close();
    res.off('drain', onDrain);
    hub.open.delete(stream);
    hub.metrics.sseSubscribers.dec();
    const n = (hub.sseByAddress.get(address) ?? 1) - 1;
    if (n > 0) hub.sseByAddress.set(address, n);
    else hub.sseByAddress.delete(address);
  });
}

/** A replayed event and its audience as the store says now. */
interface Replayed {
  e: StoredEvent;
  a: Audience;
}

/** The next few events of a replay, oldest first; [] at its end; undefined when it cannot go on without a hole. */
type ReplaySource = () => Promise<Replayed[] | undefined>;

/** Store replay pages aim at about this many bytes of event JSON (1 to STORE_PAGE_MAX events). */
const STORE_PAGE_BYTES = 1024 * 1024;
const STORE_PAGE_MAX = 256;
const STORE_PAGE_FIRST = 1;

/** The buffer's events from `replay.next` to `replay.end`, one at a time (each is parsed on demand). */
function bufferSource(hub: LiveHub, replay: { next: number; end: number; generation: number }): ReplaySource {
  const buffer = hub.buffer;
  return async () => {
    for (;;) {
      if (replay.next >= replay.end) return [];
      const e = buffer.generation === replay.generation ? buffer.at(replay.next) : undefined;
      if (e === undefined) return undefined;
      replay.next++;
      // An event its conversation's next one of its type replaced (replay-buffer.ts).
      if (e === null) continue;
      return [{ e, a: await hub.freshAudienceOf(e) }];
    }
  };
}

/**
 * The store's events after `seq`, in pages sized by the bytes of the last one (a page of 1 MiB
 * messages is two events; one of small events is a few hundred), read only when the stream has
 * written the previous page.
 */
function storeSource(hub: LiveHub, seq: number): ReplaySource {
  let at = seq;
  let size = STORE_PAGE_FIRST;
  let done = false;
  return async () => {
    if (done) return [];
    const page = await hub.ctx.store.eventsAfter(at, size);
    if (page.length < size) done = true;
    if (page.length === 0) return [];
    at = page[page.length - 1]!.seq;
    const bytes = page.reduce((n, e) => n + eventJson(e.event).length, 0);
    size = Math.max(1, Math.min(STORE_PAGE_MAX, Math.floor((STORE_PAGE_BYTES * page.length) / Math.max(1, bytes))));
    const audiences = await Promise.all(page.map((e) => hub.freshAudienceOf(e)));
    return page.map((e, i) => ({ e, a: audiences[i]! }));
  };
}

function endStream(res: ServerResponse): void {
  if (res.writableEnded) return;
  res.end();
  // A client that stopped reading would hold the end back; shutdown does not wait for it.
  setTimeout(() => res.destroy(), 500).unref();
}
