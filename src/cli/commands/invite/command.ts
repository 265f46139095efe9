// `svc invite create|accept|list`: pairings through a relay (list: list.ts; the shared rooms:
// rooms.ts). Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and
// every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { collect, type Run } from '../../options.js';

export function declareInvite(program: Command, io: Io, run: Run): void {
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
    .action(async (o) => run((await import('./run.js')).inviteCreate(io, o)));
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
    .action(async (code: string, o) => run((await import('./run.js')).inviteAccept(io, code, o)));
  invite
    .command('list')
    .description("list the running server's pairings: status, and relayed messages each peer refused (with the fix there)")
    .option('--url <url>', "server URL (env SVC_URL; else the URL the config's running server wrote, else its server.listen_addr)")
    .option('--token <token>', 'bearer token with observe or admin (env SVC_TOKEN)')
    .option('--config <file>', 'config file (env SVC_CONFIG; default ./svc.yaml)')
    .option('--json', 'print JSON ({pairings})')
    .action(async (o) => run((await import('./list.js')).pairingsList(io, { ...o, debug: Boolean(program.opts().debug) })));
}
