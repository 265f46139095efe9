// `svc tail`: follows the live event stream. Declared here; the work (run.ts) loads only when the
// command runs, so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { collect, connection, example, positiveInt, withDebug, type Run } from '../../options.js';

export function declareTail(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program.command('tail').description('follow the live event stream; reconnects and resumes (Last-Event-ID) after a drop'),
    'print one event envelope (JSON) per line',
  )
    .option('--room <id>', 'only events of this room and its threads (repeatable, or comma-separated)', collect)
    .option('--type <type>', 'only this event type, or a prefix like message.* (repeatable, or comma-separated)', collect)
    .option('--since <event-id>', 'resume after this event id (replays newer events the server still buffers)')
    .option('--count <n>', 'exit after printing N events', positiveInt)
    .option('--as <agent>', "follow as this agent (its kept token is used in place of the config's operator token)")
    .addHelpText('after', example('svc tail --room general --type message.created', 'svc tail --json | jq .message.parts'))
    .action(async (o) => run((await import('./run.js')).tailCommand(io, flags(o))));
}
