// `svc search <words...>`: full-text search over the messages the caller may read. Declared here;
// the work (run.ts) loads only when the command runs, so `svc --help` and every other command stay
// quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, positiveInt, type Run } from '../../options.js';

export function declareSearch(program: Command, io: Io, run: Run): void {
  connection(
    program
      .command('search')
      .argument('<words...>', 'words to find; every one must match, the last (from 3 letters) also as the start of a word')
      .description('full-text search over the messages you may read, newest first (GET /v1/search)'),
    'print the answer ({messages, page}) as JSON',
  )
    .option('--room <id>', 'only this room and its threads')
    .option('--thread <id>', 'only this thread')
    .option('--dm <id>', 'only this DM')
    .option('--from <id>', 'only messages from this sender (id, <network_id>:<id> or agent FQID)')
    .option('--limit <n>', 'at most N results (default 20, at most 100)', positiveInt)
    .option('--before <message-id>', 'only results older than this one (the next page)')
    .option('--as <agent>', "search as this agent (its kept token is used in place of the config's operator token)")
    .addHelpText(
      'after',
      example(
        'svc search migration plan',
        'svc search deploy --room ops --from alpha',
        'svc search invoice --json | jq -r ".messages[].id"',
      ),
    )
    .action(async (words: string[], o) =>
      run((await import('./run.js')).searchCommand(io, words, { ...o, debug: Boolean(program.opts().debug) })),
    );
}
