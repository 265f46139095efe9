// The standalone relay (`svc relay`): WebSocket rendezvous at /v1/relay?room=ROOM with
// `Authorization: Bearer RELAY_TOKEN`. Refusals happen before the upgrade, as plain HTTP statuses.
// The relay reads no frame of its peers; it only counts, times out and size-limits them.

import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenOn } from '../http/listen.js';
import { clientAddress, TokenBuckets } from '../http/token-buckets.js';
import { RELAY_ACCESS_HEADER } from '../protocol/relay.js';
import { Hub, type Slot } from './hub.js';

export interface RelayOptions {
  /** Largest frame a peer may send; larger ones close that peer's socket (1009). */
  maxFrameBytes: number;
  /** A room with no frames for this long has its peers closed (they reconnect). */
  idleTimeoutMs: number;
  maxRooms: number;
  /** WebSocket ping interval; a peer that misses a pong is dropped. */
  pingIntervalMs: number;
  /** Relay-wide access token: when set, every peer must send it (RELAY_ACCESS_HEADER); invites carry it. */
  accessToken?: string;
  /** New rooms one client address may create per minute (refused attempts at the access token count too). */
  roomsPerAddressPerMinute: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export const RELAY_DEFAULTS: RelayOptions = {
  maxFrameBytes: 2 * 1024 * 1024,
  idleTimeoutMs: 15 * 60_000,
  maxRooms: 1000,
  pingIntervalMs: 30_000,
  roomsPerAddressPerMinute: 10,
};

export const RELAY_PATH = '/v1/relay';
const ROOM_NAME = /^[A-Za-z0-9._~-]{1,256}$/;

export interface RelayServer {
  readonly server: http.Server;
  readonly hub: Hub;
  listen(addr: string): Promise<{ host: string; port: number }>;
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, reason: string, extra = ''): void {
  const text = JSON.stringify({
    error: reason,
    code:
      {
        400: 'bad_request',
        401: 'unauthorized',
        403: 'forbidden',
        404: 'not_found',
        409: 'conflict',
        429: 'too_many_requests',
        503: 'service_unavailable',
      }[status] ?? 'error',
  });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}\r\n${text}`,
  );
}

/** Whether `given` is the access token, in time independent of where they differ. */
function accessMatches(expected: string, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/** Builds a relay server (not yet listening). */
export function createRelayServer(options: Partial<RelayOptions> = {}): RelayServer {
  const opts: RelayOptions = { ...RELAY_DEFAULTS, ...options };
  const log = opts.log ?? (() => {});
  const hub = new Hub({ maxRooms: opts.maxRooms });
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxFrameBytes, perMessageDeflate: false });
  const alive = new WeakMap<WebSocket, boolean>();
  // Creating rooms is what fills the relay (maxRooms), so it is limited per address; so are wrong
  // access tokens, which makes guessing one as slow as filling the relay.
  const perMinute = opts.roomsPerAddressPerMinute;
  const creations = new TokenBuckets(perMinute / 60, Math.max(1, perMinute));
  const limited = (req: http.IncomingMessage, socket: Duplex): boolean => {
    const t = creations.take(clientAddress(req), Date.now());
    if (t.ok) return false;
    const seconds = Math.max(1, Math.ceil(t.retryAfterMs / 1000));
    log('relay peer refused', { status: 429, reason: 'room creation rate', address: clientAddress(req) });
    refuse(
      socket,
      429,
      `too many new rooms from this address (limit ${perMinute} per minute); retry after ${seconds} s`,
      `retry-after: ${seconds}\r\n`,
    );
    return true;
  };

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const body =
      path === '/healthz'
        ? { status: 'ok', ...hub.stats() }
        : { error: `no route for ${path}; peers connect with a WebSocket to ${RELAY_PATH}?room=ROOM`, code: 'not_found' };
    const text = JSON.stringify(body);
    res.writeHead(path === '/healthz' ? 200 : 404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://relay.invalid');
    } catch {
      return refuse(socket, 400, 'bad request target');
    }
    if (url.pathname !== RELAY_PATH) return refuse(socket, 404, `connect to ${RELAY_PATH}?room=ROOM`);
    const room = url.searchParams.get('room') ?? '';
    if (!ROOM_NAME.test(room)) return refuse(socket, 400, 'query room: must be 1-256 characters of A-Z a-z 0-9 . _ ~ -');
    if (opts.accessToken !== undefined && !accessMatches(opts.accessToken, req.headers[RELAY_ACCESS_HEADER])) {
      if (limited(req, socket)) return;
      log('relay peer refused', { status: 401, reason: 'access token', address: clientAddress(req) });
      return refuse(
        socket,
        401,
        `this relay needs its access token (header ${RELAY_ACCESS_HEADER}); ask the relay operator, or use an invite that carries it`,
      );
    }
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    if (m && !hub.has(room) && limited(req, socket)) return;
    const admission = hub.admit(room, m?.[1]);
    if (!admission.ok) {
      // A wrong token for an existing room is a guess at that room's token: it draws on the
      // address's bucket like a wrong access token, so guessing is as slow there as here.
      if (admission.status === 403 && limited(req, socket)) return;
      log('relay peer refused', { status: admission.status, reason: admission.reason });
      return refuse(socket, admission.status, admission.reason);
    }
    const slot: Slot = admission.slot;
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      hub.leave(slot);
    };
    socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      ws.on('message', (data, binary) => {
        alive.set(ws, true);
        hub.forward(slot, data as Buffer, binary);
      });
      ws.on('close', release);
      ws.on('error', () => ws.terminate());
      hub.attach(slot, {
        send: (data, binary) => {
          if (ws.readyState === ws.OPEN) ws.send(data, { binary });
        },
        close: (code, reason) => ws.close(code, reason),
      });
    });
  });

  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, opts.pingIntervalMs);
  pinger.unref();
  const sweeper = setInterval(
    () => {
      const n = hub.sweepIdle(opts.idleTimeoutMs);
      if (n > 0) log('idle relay rooms closed', { rooms: n });
    },
    Math.max(10, Math.min(opts.idleTimeoutMs / 2, 30_000)),
  );
  sweeper.unref();

  let closing: Promise<void> | undefined;
  return {
    server,
    hub,
    listen(addr) {
      return listenOn(server, addr);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(pinger);
        clearInterval(sweeper);
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
