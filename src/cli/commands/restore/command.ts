// `svc restore DIR`: brings a `svc backup` back into the configured sqlite store, server stopped.
// Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and every
// other command stay quick to start.

import type { Command } from 'commander';
import { envValue } from '../../../config/env.js';
import type { Io } from '../../io.js';
import { example, type Run } from '../../options.js';

export function declareRestore(program: Command, io: Io, run: Run): void {
  program
    .command('restore')
    .argument('<dir>', 'a folder `svc backup` wrote')
    .description("restore a backup into the config's sqlite store (server stopped), then open it once to check it replays")
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .option('--force', 'restore a backup of another network, or over a store that holds data (its files are moved aside, not deleted)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', example('svc restore /var/backups/svc/2026-11-29 --config svc.yaml'))
    .action(async (dir: string, o) => run((await import('./run.js')).restoreCommand(io, dir, { ...o, debug: program.opts().debug })));
}
