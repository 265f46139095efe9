// GET /v1/events/stream: pure frame formatting, and the stream (replay from the in-memory buffer,
// then live events from a bounded broker queue, keep-alive comments, drop when it falls behind).

import type { ServerResponse } from 'node:http';
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

  // Replay and subscription start in one turn: what was published before is in the buffer, what
  // is published after lands in the queue (held paused until the replay is written); nothing
  // falls between or arrives twice.
  let out = formatRetry(RETRY_MS);
  const header = req.headers['last-event-id'];
  const last = (typeof header === 'string' ? header : undefined) ?? url.searchParams.get('last_event_id') ?? undefined;
  let replay: readonly StoredEvent[] = [];
  if (last) {
    const after = hub.buffer.after(last.trim());
    if (!after) {
      const gap = { id: newId('evt'), type: 'stream.replay_gap' as EventType, network_id: localNet, created_at: new Date().toISOString() };
      out += formatEvent(gap, JSON.stringify(gap), false);
    }
    replay = after ?? hub.buffer.all();
  } else {
    out += formatComment('connected');
  }

  const onDrain = () => sub.resume();
  const sub = net.broker.open({
    max: SSE_QUEUE_MAX,
    maxBytes: SSE_QUEUE_MAX_BYTES,
    sizeOf: (e) => eventJson(e.event).length,
    surface: 'sse',
    deliver: (batch) => {
      let chunk = '';
      for (const e of batch) if (sees(e)) chunk += sseFrame(e);
      if (chunk && !res.write(chunk)) {
        sub.pause();
        res.once('drain', onDrain);
      }
    },
    // Fell behind: cut it; the client reconnects with Last-Event-ID and replays from the buffer.
    dropped: () => res.destroy(),
  });
  if (replay.length === 0) res.write(out);
  else {
    // Replayed events are judged by the rooms and DMs as they are now: read them first.
    sub.pause();
    void Promise.all(replay.map((e) => hub.freshAudienceOf(e))).then(
      (audiences) => {
        replay.forEach((e, i) => {
          if (seesWith(e, audiences[i]!)) out += sseFrame(e);
        });
        if (res.destroyed) return;
        if (res.write(out)) sub.resume();
        else res.once('drain', onDrain);
      },
      () => res.destroy(),
    );
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

function endStream(res: ServerResponse): void {
  if (res.writableEnded) return;
  res.end();
  // A client that stopped reading would hold the end back; shutdown does not wait for it.
  setTimeout(() => res.destroy(), 500).unref();
}
