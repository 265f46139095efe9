// `svc console`: prints a one-time sign-in link to the web console. Declared here; the work
// (run.ts) loads only when the command runs, so `svc --help` and every other command stay quick to
// start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareConsole(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('console')
      .description("print a one-time sign-in link to the web console (admin; the config's operator token by default)"),
    'print {url, expires_at} as JSON',
  )
    .option('--expires <duration>', 'how long the link works: 30s, 5m (default 2m, at most 10m)')
    .addHelpText('after', example('svc console', 'svc console --config /etc/svc/svc.yaml'))
    .action(async (o) => run((await import('./run.js')).consoleCommand(io, flags(o))));
}
