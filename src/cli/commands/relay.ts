// svc relay: runs the standalone WebSocket rendezvous until SIGINT/SIGTERM.

import type { Command } from 'commander';
import { createLogger } from '../../log.js';
import { parseDuration } from '../../pairing/invite.js';
import { createRelayServer, RELAY_DEFAULTS, RELAY_PATH } from '../../relay/server.js';
import { EXIT, type Io } from '../io.js';

export interface RelayCommandOptions {
  listen: string;
  maxFrameBytes?: string;
  idleTimeout?: string;
  maxRooms?: string;
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
  try {
    maxFrameBytes = positive('--max-frame-bytes', opts.maxFrameBytes, RELAY_DEFAULTS.maxFrameBytes);
    maxRooms = positive('--max-rooms', opts.maxRooms, RELAY_DEFAULTS.maxRooms);
    idleTimeoutMs = opts.idleTimeout === undefined ? RELAY_DEFAULTS.idleTimeoutMs : parseDuration(opts.idleTimeout);
  } catch (err) {
    io.err(`svc relay: ${(err as Error).message}`);
    return EXIT.usage;
  }
  const log = createLogger({ debug: Boolean(opts.debug) });
  const relay = createRelayServer({ maxFrameBytes, idleTimeoutMs, maxRooms, log: (msg, fields) => log('info', msg, fields) });
  let addr;
  try {
    addr = await relay.listen(opts.listen);
  } catch (err) {
    await relay.close();
    io.err(`svc relay: cannot listen on ${opts.listen}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return EXIT.failure;
  }
  const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
  io.out(`svc relay listening on ws://${host}:${addr.port}${RELAY_PATH}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  log('info', 'relay shutting down', relay.hub.stats());
  await relay.close();
  return EXIT.ok;
}

/** Declares `svc relay`. */
export function registerRelayCommand(program: Command, io: Io, run: (p: Promise<number>) => Promise<void>): void {
  program
    .command('relay')
    .description('run a relay: a WebSocket rendezvous where two paired servers meet (two peers per room)')
    .option('--listen <addr>', 'address to listen on (port 0 picks a free port)', '127.0.0.1:8788')
    .option('--max-frame-bytes <n>', `largest frame a peer may send (default ${RELAY_DEFAULTS.maxFrameBytes})`)
    .option('--idle-timeout <duration>', 'close the peers of a room with no frames for this long (default 15m)')
    .option('--max-rooms <n>', `most rooms open at once (default ${RELAY_DEFAULTS.maxRooms})`)
    .addHelpText('after', '\nExample:\n  svc relay --listen 0.0.0.0:8788   # behind a TLS proxy for wss://')
    .action((o: RelayCommandOptions) => run(relayCommand(io, { ...o, debug: Boolean(program.opts().debug) })));
}
