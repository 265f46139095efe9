// `svc relay`: runs a relay. Declared here; the work (run.ts) loads only when the command runs, so
// `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import type { Run } from '../../options.js';

export function declareRelay(program: Command, io: Io, run: Run): void {
  program
    .command('relay')
    .description('run a relay: a WebSocket rendezvous where two paired servers meet (two peers per room)')
    .option('--listen <addr>', 'address to listen on (port 0 picks a free port)', '127.0.0.1:8788')
    .option('--max-frame-bytes <n>', 'largest frame a peer may send (default 2097152)')
    .option('--idle-timeout <duration>', 'close the peers of a room with no frames for this long (default 15m)')
    .option('--max-rooms <n>', 'most rooms open at once (default 1000)')
    .option('--access-token-env <name>', 'environment variable holding a relay-wide access token every peer must send (invites carry it)')
    .option('--room-rate <n>', 'new rooms one client address may create per minute (default 10)')
    .addHelpText('after', '\nExample:\n  svc relay --listen 0.0.0.0:8788   # behind a TLS proxy for wss://')
    .action(async (o) => run((await import('./run.js')).relayCommand(io, { ...o, debug: Boolean(program.opts().debug) })));
}
