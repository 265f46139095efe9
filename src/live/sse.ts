// GET /v1/events/stream: pure frame formatting, and the stream (replay from the in-memory buffer
// as the socket drains, then live events from a bounded broker queue, keep-alive comments, drop
// when it falls behind).

import type { ServerResponse } from 'node:http';
import { newId } from '../protocol/ids.js';
import type { EventType, ServiceEvent } from '../protocol/types.js';
import type { Store, StoredEvent } from '../store/types.js';
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
  const types = q.getAll('type').flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
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

function openStream(hub: LiveHub, c: RequestContext): void {
  const { req, res, url, principal } = c;
  const net = hub.net;
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
  const lv = liveViewerOf(principal, net.config.auth);
  const filter = filterOf(url.searchParams);
  const localNet = net.config.network.id;
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
    if (after === undefined && net.store.eventSeq) fromStore = true;
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

  const onDrain = () => sub.resume();
  const sub = net.broker.open({
    max: SSE_QUEUE_MAX,
    maxBytes: SSE_QUEUE_MAX_BYTES,
    sizeOf: (e) => eventJson(e.event).length,
    surface: 'sse',
    deliver: (batch) => {
      let chunk = '';
      for (const e of batch) {
        if (e.seq <= sentSeq) continue;
        sentSeq = e.seq;
        if (sees(e)) chunk += sseFrame(e);
      }
      if (chunk && !res.write(chunk)) {
        sub.pause();
        res.once('drain', onDrain);
      }
    },
    // Fell behind: cut it; the client reconnects with Last-Event-ID and replays from the buffer.
    dropped: () => res.destroy(),
  });

  // The replay is written as the socket drains, one event parsed at a time, with live events
  // waiting in the queue meanwhile (under the same cap as any paused stream). A replay whose next
  // event has left the buffer cannot continue without a hole: cut, and the client resumes.
  const pump = async (): Promise<void> => {
    if (res.destroyed || res.writableEnded || sub.closed) return;
    let chunk = '';
    let turnBytes = 0;
    while (replay.next < replay.end) {
      const e = buffer.generation === replay.generation ? buffer.at(replay.next) : undefined;
      if (!e) {
        res.destroy();
        return;
      }
      replay.next++;
      if (e.seq > sentSeq) sentSeq = e.seq;
      // Replayed events are judged by the rooms and DMs as they are now.
      const a = await hub.freshAudienceOf(e);
      if (res.destroyed || sub.closed) return;
      if (!seesWith(e, a)) continue;
      const frame = sseFrame(e);
      chunk += frame;
      turnBytes += frame.length;
      if (chunk.length >= REPLAY_CHUNK_BYTES || replay.next === replay.end) {
        const more = res.write(chunk);
        chunk = '';
        if (!more) {
          res.once('drain', resumeReplay);
          return;
        }
      }
      // Long replays yield so one stream cannot hold the event loop (health probes, other sends).
      if (turnBytes >= REPLAY_TURN_BYTES) {
        setImmediate(resumeReplay);
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
   * Replays from the store what followed the client's last event (up to a buffer's worth); the
   * live queue, paused meanwhile, then skips what the replay covered. Past that much, or when the
   * store does not know the event: a gap, and the buffer's replay as usual.
   */
  async function replayStored(): Promise<void> {
    const events = await replayFromStore(net.store, last!.trim(), net.config.server.event_buffer);
    if (res.destroyed || sub.closed) return;
    if (!events) {
      res.write(gapFrame());
      Object.assign(replay, { next: buffer.start, end: buffer.end, generation: buffer.generation });
      if (replay.next < replay.end) resumeReplay();
      else sub.resume();
      return;
    }
    const audiences = await Promise.all(events.map((e) => hub.freshAudienceOf(e)));
    if (res.destroyed || sub.closed) return;
    let chunk = '';
    events.forEach((e, i) => {
      if (e.seq > sentSeq) sentSeq = e.seq;
      if (seesWith(e, audiences[i]!)) chunk += sseFrame(e);
    });
    if (chunk && !res.write(chunk)) res.once('drain', onDrain);
    else sub.resume();
  }

  const every = Math.min(KEEPALIVE_MAX_MS, net.config.server.heartbeat_interval_ms);
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
  });
}

/**
 * The stored events after `eventId`, at most `max` of them; undefined when the store does not
 * know the event or more than `max` followed it (the client is told of a gap instead).
 */
async function replayFromStore(store: Store, eventId: string, max: number): Promise<StoredEvent[] | undefined> {
  const seq = await store.eventSeq?.(eventId);
  if (seq === undefined) return undefined;
  const out: StoredEvent[] = [];
  for (let at = seq; ; ) {
    const page = await store.eventsAfter(at, 1000);
    out.push(...page);
    if (out.length > max) return undefined;
    if (page.length < 1000) return out;
    at = page[page.length - 1]!.seq;
  }
}

function endStream(res: ServerResponse): void {
  if (res.writableEnded) return;
  res.end();
  // A client that stopped reading would hold the end back; shutdown does not wait for it.
  setTimeout(() => res.destroy(), 500).unref();
}
