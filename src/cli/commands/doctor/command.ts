// `svc doctor`: checks the config, the running server, compatibility, warnings and pairings.
// Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and every
// other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareDoctor(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('doctor')
      .description('check the config, its file mode, the running server, compatibility, warnings and pairings; exit 1 when a check fails'),
    'print the checks as JSON',
  )
    .addHelpText('after', example('svc doctor', 'svc doctor --config /etc/svc/svc.yaml --token "$SVC_TOKEN"'))
    .action(async (o) => run((await import('./run.js')).doctorCommand(io, flags(o))));
}
