// `svc versions`: a message's earlier versions (before its edits). Declared here; the work (run.ts)
// loads only when the command runs, so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareVersions(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('versions')
      .argument('<message-id>', 'the message')
      .description("list a message's earlier versions, oldest first (svc read shows the current one)"),
    'print the server answer as JSON',
  )
    .option('--as <agent>', "read as this agent (its kept token in place of the config's operator token)")
    .addHelpText('after', example('svc versions msg_01h...', 'svc versions msg_01h... --json'))
    .action(async (id: string, o) => run((await import('./run.js')).versionsCommand(io, id, flags(o))));
}
