// The socket listeners of every attachment: shared functions that find their session on the
// socket, rather than a handful of closures per socket (ten thousand sockets, ten thousand sets).

import type { RawData, WebSocket } from 'ws';
import type { LifecycleReason } from '../agent-events.js';

/** What the listeners call on the session that owns a socket. */
export interface SocketOwner {
  onFrame(data: RawData, isBinary: boolean): void;
  touch(): void;
  note(reason: LifecycleReason, detail: string): void;
  onClose(code: number, reason: string): void;
}

const OWNER = Symbol('attach session');
type OwnedSocket = WebSocket & { [OWNER]?: SocketOwner };

function onMessage(this: OwnedSocket, data: RawData, isBinary: boolean): void {
  this[OWNER]?.onFrame(data, isBinary);
}
function onPingOrPong(this: OwnedSocket): void {
  this[OWNER]?.touch();
}
function onError(this: OwnedSocket, err: Error): void {
  this[OWNER]?.note('read_error', err.message);
}
function onClose(this: OwnedSocket, code: number, reason: Buffer): void {
  this[OWNER]?.onClose(code, reason.toString());
}

/** Routes the socket's frames, pings, errors and close to `owner`. */
export function listen(ws: WebSocket, owner: SocketOwner): void {
  (ws as OwnedSocket)[OWNER] = owner;
  ws.on('message', onMessage);
  ws.on('ping', onPingOrPong);
  ws.on('pong', onPingOrPong);
  ws.on('error', onError);
  ws.on('close', onClose);
}
