// The shape of a WebSocket upgrade handler, apart from any feature so the live attachment and the
// app can both name it without importing each other.

import type http from 'node:http';
import type { Duplex } from 'node:stream';

/** Handles a WebSocket upgrade; returns false when the path is not its own. */
export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => boolean;
