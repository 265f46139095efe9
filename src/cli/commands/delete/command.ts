// `svc delete`: deletes a message, leaving a tombstone in its place. Declared here; the work
// (run.ts) loads only when the command runs, so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareDelete(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('delete')
      .argument('<message-id>', 'the message to delete')
      .description('delete a message, leaving a tombstone in its place (its thread stays), as its sender or an operator'),
    'print the tombstone as JSON',
  )
    .option('--as <agent>', 'delete as this agent, the sender (its agent token, or a static token that owns it)')
    .option('--human <id>', 'delete as this person, the sender (needs human ingress and a static write token)')
    .addHelpText('after', example('svc delete msg_01h... --as alpha', 'svc delete msg_01h...        # as an operator (admin token)'))
    .action(async (id: string, o) => run((await import('./run.js')).deleteCommand(io, id, flags(o))));
}
