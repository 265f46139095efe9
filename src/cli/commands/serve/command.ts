// `svc serve`: runs the server. Declared here; the work (run.ts) loads only when the command runs,
// so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import { envValue } from '../../../config/env.js';
import type { Io } from '../../io.js';
import type { Run } from '../../options.js';

export function declareServe(program: Command, io: Io, run: Run): void {
  program
    .command('serve')
    .description('run the server (SIGINT/SIGTERM stop it; SIGHUP or a config edit reloads it)')
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .option('--listen <addr>', 'override server.listen_addr (port 0 picks a free port; :PORT means every interface)')
    .option('--init', 'write a default config first when none exists')
    .addHelpText('after', '\nExample:\n  svc serve --config svc.yaml --listen 127.0.0.1:0')
    // Loaded on use: the server's modules would slow every client command's start.
    .action(async (o) => run((await import('./run.js')).serveCommand(io, { ...o, debug: program.opts().debug })));
}
