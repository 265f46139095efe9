// Declares `svc invite create|accept|list` and `svc relay`. The work lives in commands/invite.ts,
// commands/pairings.ts and commands/relay.ts, loaded only when the command runs: the config schema
// and ws cost every other command start-up time otherwise.

import type { Command } from 'commander';
import type { Io } from './io.js';
import { collect } from './options.js';

type Run = (p: Promise<number>) => Promise<void>;

export function registerPairingCommands(program: Command, io: Io, run: Run): void {
  const invite = program
    .command('invite')
    .description('link this network with another one through a relay: create an invite code, or accept one');
  invite
    .command('create')
    .description('generate a pairing and its secrets, write them to svc.yaml and print the invite code')
    .option('--relay-url <url>', 'ws:// or wss:// address of the relay both networks reach (env SVC_RELAY_URL)')
    .option(
      '--relay-access-token-env <name>',
      "environment variable holding the relay's access token, if it requires one (default SVC_RELAY_ACCESS_TOKEN when set); the code carries it",
    )
    .option('--rooms <ids>', 'comma-separated rooms to share (created if absent, federation allows the pairing)')
    .option('--expires <duration>', 'how long the code is valid: 7d, 12h, 30m', '7d')
    .option('--config <file>', 'config file (env SVC_CONFIG; default ./svc.yaml)')
    .option('--json', 'print JSON (pairing_id, expires_at, code)')
    .addHelpText('after', '\nExample:\n  svc invite create --relay-url wss://relay.example/v1/relay --rooms general')
    .action(async (o) => run((await import('./commands/invite/run.js')).inviteCreate(io, o)));
  invite
    .command('accept')
    .description('check an invite code and write the mirror pairing, token and shared rooms to svc.yaml')
    .argument('<code>', 'the service-invite:... code')
    .option('--config <file>', 'config file (env SVC_CONFIG; default ./svc.yaml)')
    .option(
      '--allow-private <rooms>',
      'share these existing private rooms too (repeatable, or comma-separated); refused otherwise unless confirmed on a terminal',
      collect,
    )
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      "\nExample:\n  svc invite accept 'service-invite:eyJ2Ijox...'\n  svc invite accept --allow-private ops 'service-invite:eyJ2Ijox...'",
    )
    .action(async (code: string, o) => run((await import('./commands/invite/run.js')).inviteAccept(io, code, o)));
  invite
    .command('list')
    .description("list the running server's pairings: status, and relayed messages each peer refused (with the fix there)")
    .option('--url <url>', "server URL (env SVC_URL; else the URL the config's running server wrote, else its server.listen_addr)")
    .option('--token <token>', 'bearer token with observe or admin (env SVC_TOKEN)')
    .option('--config <file>', 'config file (env SVC_CONFIG; default ./svc.yaml)')
    .option('--json', 'print JSON ({pairings})')
    .action(async (o) => run((await import('./commands/invite/list.js')).pairingsList(io, { ...o, debug: Boolean(program.opts().debug) })));

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
    .action(async (o) => run((await import('./commands/relay/run.js')).relayCommand(io, { ...o, debug: Boolean(program.opts().debug) })));
}
