// `svc send`: sends a message as a person or an agent. Declared here; the work (run.ts) loads only
// when the command runs, so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { collect, connection, example, withDebug, type Run } from '../../options.js';

export function declareSend(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('send')
      .argument('[text...]', 'the message text, or - to read it from stdin (optional with --file)')
      .description('send a message to a room, a thread or a DM, as a person or as an agent (--as)'),
    'print the server answer as JSON',
  )
    .option('--room <id>', 'room to send to')
    .option('--thread <id>', 'thread of --room to send to (a new id starts the thread)')
    .option('--parent <message-id>', 'with a new --thread: the message it answers')
    .option('--dm <agent>', 'send a DM to these agents (repeatable, or comma-separated), or to a DM id (dm_...)', collect)
    .option('--as <agent>', 'send as this agent (its agent token, or a static token that owns it)')
    .option('--human <id>', 'send as this person (default $USER; needs human ingress and a static write token)')
    .option('--mention <agent>', 'mention these agents without @ in the text (repeatable, or comma-separated)', collect)
    .option('--id <message-id>', 'message id: a retry with the same id stores nothing new')
    .option('--file <path>', 'upload this file and attach it to the message (repeatable)', collect)
    .addHelpText(
      'after',
      example(
        'svc send --room general "deploy finished, @beta please verify"',
        'svc send --room general --thread t-42 --as alpha "looking into it"',
        'echo "hi" | svc send --dm beta --as alpha -',
        'svc send --room general --file build.log --file screenshot.png "the failing build"',
      ),
    )
    .action(async (words: string[], o) => run((await import('./run.js')).sendCommand(io, words, flags(o))));
}
