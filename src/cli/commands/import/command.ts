// `svc import FILE`: loads an export (svc export) into the empty store of the config (server
// stopped). Declared here; the work (run.ts) loads only when the command runs.

import type { Command } from 'commander';
import { envValue } from '../../../config/env.js';
import type { Io } from '../../io.js';
import type { Run } from '../../options.js';
import { example } from '../../options.js';

export function declareImport(program: Command, io: Io, run: Run): void {
  program
    .command('import')
    .argument('<file>', 'an export file written by svc export (- reads stdin)')
    .description('load an export into the empty store of the config, any backend (server stopped); all of it or nothing')
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .addHelpText(
      'after',
      example('svc import home.jsonl --config svc.yaml', 'svc export | ssh new-host svc import - --config /etc/svc/svc.yaml'),
    )
    .action(async (file: string, o) =>
      run((await import('./run.js')).importCommand(io, { file, config: o.config, debug: program.opts().debug })),
    );
}
