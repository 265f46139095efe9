// `svc init`: writes svc.yaml with the default local posture. Declared here; the work (run.ts)
// loads only when the command runs, so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import type { Run } from '../../options.js';

export function declareInit(program: Command, io: Io, run: Run): void {
  program
    .command('init')
    .description('write svc.yaml with the default local posture (loopback, open mode, sqlite)')
    .option('--dir <dir>', 'folder to write svc.yaml in', '.')
    .option('--network-id <id>', "network id (default: derived from the folder's name, else home)")
    .option('--name <name>', 'display name (default: the network id)')
    .option('--listen <addr>', 'server.listen_addr to write (default 127.0.0.1:8787; port 0 picks a free port at each start)')
    .option('--yes', 'accept defaults without prompting')
    .option('--force', 'overwrite an existing svc.yaml')
    .addHelpText('after', '\nExample:\n  svc init --yes --network-id home --name "Home"')
    .action(async (o) => run((await import('./run.js')).initCommand(io, o)));
}
