// `svc store recover|copy`: maintenance of the store named by the config (recover.ts, copy.ts).
// Declared here; the work (beside it) loads only when the command runs, so `svc --help` and every
// other command stay quick to start.

import type { Command } from 'commander';
import { envValue } from '../../../config/env.js';
import type { Io } from '../../io.js';
import type { Run } from '../../options.js';

export function declareStore(program: Command, io: Io, run: Run): void {
  const storeCmd = program.command('store').description('maintain the store named by the config, or copy it into Postgres');
  storeCmd
    .command('recover')
    .description('repair a sqlite journal damaged in the middle: keep intact records, skip damaged ones, keep a copy (server stopped)')
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .action(async (o) => run((await import('./recover.js')).storeRecoverCommand(io, o)));
  storeCmd
    .command('copy')
    .description('copy the network of the configured store (server stopped) into an empty Postgres schema or a new sqlite file')
    .requiredOption(
      '--to <url|file>',
      'target: a database URL (postgres://user@host:5432/db; the password from PGPASSWORD) or a sqlite file path',
    )
    .option('--schema <name>', 'target schema, with a Postgres URL (default public)')
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .addHelpText(
      'after',
      '\nExamples:\n  svc store copy --config svc.yaml --to postgres://svc@db.internal/svc --schema home\n  svc store copy --config svc-pg.yaml --to ./laptop/svc.db',
    )
    .action(async (o) => run((await import('./copy.js')).storeCopyCommand(io, { ...o, debug: program.opts().debug })));
}
