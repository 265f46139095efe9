// GET /v1/attach: checks the browser Origin, then admits the caller through the same gate as HTTP
// (limits, credential, authorization) before upgrading; a refusal is an ordinary HTTP error envelope.

import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Server, WebSocketServer } from 'ws';
import type { UpgradeHandler } from '../../http/upgrade.js';
import { AppError } from '../../errors.js';
import { sendError, toAppError } from '../../http/respond.js';
import { admitCaller } from '../../http/gate.js';
import type { HttpDeps } from '../../http/server.js';
import { newId } from '../../protocol/ids.js';
import type { LiveHub } from '../hub.js';
import { defaultOrigins, originAllowed } from '../origin.js';
import { AttachSession } from './session.js';
import { AttachSocket } from './attach-socket.js';
import { HeartbeatWheel } from './heartbeat.js';
import { peerOf } from './holder.js';

/** The spec's limits: WebSocket frames are capped at 1 MiB. */
export const MAX_FRAME_BYTES = 1024 * 1024;
export const ATTACH_PATH = '/v1/attach';

export function attachUpgrade(hub: LiveHub, http: HttpDeps, bound: () => { host: string; port: number } | undefined): UpgradeHandler {
  // No compression unless asked for here (ws's default for servers, written out): it costs a
  // zlib context per attachment.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    clientTracking: false,
    perMessageDeflate: false,
    WebSocket: AttachSocket,
  });
  const wheel = new HeartbeatWheel(hub.ctx.config.server.heartbeat_interval_ms);
  return (req, socket, head) => {
    if ((req.url ?? '/').split('?')[0] !== ATTACH_PATH) return false;
    // A shared listener: a closure here would keep the request and its headers for the socket's life.
    socket.on('error', destroySocket);
    void admit(hub, http, bound, wss, wheel, req, socket, head);
    return true;
  };
}

function destroySocket(this: Duplex): void {
  this.destroy();
}

/** Authentication reads the store: the upgrade is answered once it has. */
async function admit(
  hub: LiveHub,
  http: HttpDeps,
  bound: () => { host: string; port: number } | undefined,
  wss: Server<typeof AttachSocket>,
  wheel: HeartbeatWheel,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  try {
    if (hub.closed) throw new AppError('service_unavailable', 'the server is shutting down');
    // ws would refuse these itself, but with an HTML body; refuse them with the envelope instead.
    if (!validHandshake(req))
      throw new AppError(
        'bad_request',
        'not a valid WebSocket upgrade (needs Upgrade: websocket, a Sec-WebSocket-Key and Sec-WebSocket-Version: 13)',
      );
    const origin = req.headers.origin;
    // No Origin (not a browser) passes: the allowed list is only worked out for one that has it.
    if (origin !== undefined && !originAllowed(origin, allowedOrigins(hub, bound()))) {
      throw new AppError('forbidden', `origin ${origin} is not allowed to attach (server.allowed_origins)`);
    }
    // The same gate as every HTTP request, so bad tokens here count against the address's limit too.
    const principal = await admitCaller(http, hub.ctx.config.auth, req, { action: 'attach' });
    wss.handleUpgrade(req, socket, head, (ws) => {
      // ws destroys the socket on an error from here on (its own listener): one listener, not two, on every socket.
      socket.off('error', destroySocket);
      new AttachSession({ hub, ws, socket, principal, wheel, peer: peerOf(req) }).begin();
    });
  } catch (err) {
    refuse(req, socket, toAppError(err).error);
  }
}

/** The RFC 6455 handshake headers ws checks in handleUpgrade. */
function validHandshake(req: IncomingMessage): boolean {
  const key = req.headers['sec-websocket-key'];
  const version = req.headers['sec-websocket-version'];
  return (
    req.method === 'GET' &&
    req.headers.upgrade?.toLowerCase() === 'websocket' &&
    typeof key === 'string' &&
    /^[+/0-9A-Za-z]{22}==$/.test(key.trim()) &&
    (version === '13' || version === '8')
  );
}

function allowedOrigins(hub: LiveHub, addr: { host: string; port: number } | undefined): readonly string[] {
  // An empty list reads as omitted (the documented sample config writes `allowed_origins: []`).
  const configured = hub.ctx.config.server.allowed_origins;
  if (configured && configured.length > 0) return configured;
  if (!addr) return [];
  return defaultOrigins(addr.host, addr.port);
}

/** Answers the upgrade request with the usual error envelope and closes the socket. */
function refuse(req: IncomingMessage, socket: Duplex, err: AppError): void {
  const res = new ServerResponse(req);
  res.assignSocket(socket as Socket);
  res.shouldKeepAlive = false;
  res.once('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  sendError(res, err, newId('req'));
}
