// svc relay: runs the standalone WebSocket rendezvous until SIGINT/SIGTERM.

import { envValue } from '../../../config/env.js';
import { createLogger } from '../../../log.js';
import { parseDuration } from '../../../pairing/invite.js';
import { createRelayServer, RELAY_DEFAULTS, RELAY_PATH } from '../../../relay/server.js';
import { EXIT, type Io } from '../../io.js';

export interface RelayCommandOptions {
  listen: string;
  maxFrameBytes?: string;
  idleTimeout?: string;
  maxRooms?: string;
  accessTokenEnv?: string;
  roomRate?: string;
  debug?: boolean;
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name}: must be a whole number of 1 or more`);
  return n;
}

export async function relayCommand(io: Io, opts: RelayCommandOptions): Promise<number> {
  let maxFrameBytes: number;
  let idleTimeoutMs: number;
  let maxRooms: number;
  let roomsPerAddressPerMinute: number;
  let accessToken: string | undefined;
  try {
    maxFrameBytes = positive('--max-frame-bytes', opts.maxFrameBytes, RELAY_DEFAULTS.maxFrameBytes);
    maxRooms = positive('--max-rooms', opts.maxRooms, RELAY_DEFAULTS.maxRooms);
    roomsPerAddressPerMinute = positive('--room-rate', opts.roomRate, RELAY_DEFAULTS.roomsPerAddressPerMinute);
    if (opts.accessTokenEnv !== undefined) {
      // From the environment, never the command line: arguments show in `ps`.
      accessToken = envValue(io.env, opts.accessTokenEnv);
      if (accessToken === undefined) throw new Error(`--access-token-env: environment variable ${opts.accessTokenEnv} is not set`);
    }
    idleTimeoutMs = opts.idleTimeout === undefined ? RELAY_DEFAULTS.idleTimeoutMs : parseDuration(opts.idleTimeout);
  } catch (err) {
    io.err(`svc relay: ${(err as Error).message}`);
    return EXIT.usage;
  }
  const log = createLogger({ debug: Boolean(opts.debug) });
  const relay = createRelayServer({
    maxFrameBytes,
    idleTimeoutMs,
    maxRooms,
    roomsPerAddressPerMinute,
    ...(accessToken ? { accessToken } : {}),
    log: (msg, fields) => log('info', msg, fields),
  });
  let addr;
  try {
    addr = await relay.listen(opts.listen);
  } catch (err) {
    await relay.close();
    io.err(`svc relay: cannot listen on ${opts.listen}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return EXIT.failure;
  }
  const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
  io.out(`svc relay listening on ws://${host}:${addr.port}${RELAY_PATH}${accessToken ? ' (peers need the access token)' : ''}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  log('info', 'relay shutting down', relay.hub.stats());
  await relay.close();
  return EXIT.ok;
}
