// `svc redact`: an operator's redaction of a message, its content removed from everything the
// store keeps. Declared here; the work (run.ts) loads only when the command runs, so `svc --help`
// and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareRedact(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('redact')
      .argument('<message-id>', 'the message to redact')
      .description(
        'redact a message (admin): a tombstone stays in its place and its content is removed from everything svc keeps; cannot be undone',
      ),
    'print the tombstone as JSON',
  )
    .option('--yes', 'redact without asking (needed when stdin is not a terminal)')
    .addHelpText('after', example('svc redact msg_01h...          # asks first, on a terminal', 'svc redact msg_01h... --yes'))
    .action(async (id: string, o) => run((await import('./run.js')).redactCommand(io, id, flags(o))));
}
