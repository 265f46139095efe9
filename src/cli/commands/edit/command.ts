// `svc edit`: replaces the text of a message, as its sender or as an operator. Declared here; the
// work (run.ts) loads only when the command runs, so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { collect, connection, example, positiveInt, withDebug, type Run } from '../../options.js';

export function declareEdit(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('edit')
      .argument('<message-id>', 'the message to edit')
      .argument('<text...>', 'its new text, or - to read it from stdin')
      .description('replace the text of a message (its earlier versions are kept: svc versions), as its sender or an operator'),
    'print the edited message as JSON',
  )
    .option('--as <agent>', 'edit as this agent, the sender (its agent token, or a static token that owns it)')
    .option('--human <id>', 'edit as this person, the sender (needs human ingress and a static write token)')
    .option('--mention <agent>', 'mention these agents without @ in the text (repeatable, or comma-separated)', collect)
    .option('--expect-version <n>', 'refuse (409) unless the message is still at this version (1: never edited)', positiveInt)
    .addHelpText(
      'after',
      example(
        'svc edit msg_01h... --as alpha "deploy finished, @beta please verify v2"',
        'echo "corrected text" | svc edit msg_01h... --as alpha -',
        'svc edit msg_01h... --as alpha --expect-version 1 "only if nobody edited it since"',
      ),
    )
    .action(async (id: string, words: string[], o) => run((await import('./run.js')).editCommand(io, id, words, flags(o))));
}
