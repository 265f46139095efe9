// `svc read`: prints the newest messages of a room, a thread or a DM. Declared here; the work
// (run.ts) loads only when the command runs, so `svc --help` and every other command stay quick to
// start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { collect, connection, example, positiveInt, withDebug, type Run } from '../../options.js';

export function declareRead(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program.command('read').description('print the newest messages of a room, a thread or a DM, oldest first'),
    'print {messages, page} as JSON',
  )
    .option('--room <id>', 'room history (its threads are separate)')
    .option('--thread <id>', 'thread history')
    .option('--dm <dm>', 'DM history: a DM id, or the agents in it (repeatable, or comma-separated)', collect)
    .option('--limit <n>', 'how many (default 20, at most 500)', positiveInt)
    .option('--before <message-id>', 'older than this message')
    .option('--as <agent>', "read as this agent (its kept token is used in place of the config's operator token)")
    .option('--receipts', 'show who each message was delivered to and who read it (your own messages; all of them for an admin)')
    .addHelpText(
      'after',
      example(
        'svc read --room general --limit 5',
        'svc read --room general --receipts',
        'svc read --dm alpha,beta --json | jq -r ".messages[].id"',
      ),
    )
    .action(async (o) => run((await import('./run.js')).readCommand(io, flags(o))));
}
