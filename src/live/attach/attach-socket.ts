// The WebSocket class of attachments (ws's `WebSocket` option): its events go straight to the
// session that owns it. Registered listeners, even shared functions, cost every socket a property
// dictionary on its emitter (five events: about 100 bytes an attachment, ten thousand of them).

import { type RawData, WebSocket } from 'ws';
import type { LifecycleReason } from '../agent-events.js';

/** What the socket calls on the session that owns it. */
export interface SocketOwner {
  onFrame(data: RawData, isBinary: boolean): void;
  touch(): void;
  note(reason: LifecycleReason, detail: string): void;
  onClose(code: number, reason: string): void;
}

/** Once owned, its message, ping, pong, error and close events go to the owner alone: a listener added for them is never called. */
export class AttachSocket extends WebSocket {
  /** Set once the session begins; what arrives before is ws's own business (nothing for a server socket). */
  owner: SocketOwner | undefined = undefined;

  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own signature
  override emit(event: string | symbol, ...args: any[]): boolean {
    const owner = this.owner;
    if (owner === undefined) return super.emit(event, ...args);
    switch (event) {
      case 'message':
        owner.onFrame(args[0] as RawData, args[1] as boolean);
        return true;
      case 'ping':
      case 'pong':
        owner.touch();
        return true;
      case 'error':
        owner.note('read_error', (args[0] as Error).message);
        return true;
      case 'close':
        owner.onClose(args[0] as number, String(args[1]));
        return true;
      default:
        return super.emit(event, ...args);
    }
  }
}
