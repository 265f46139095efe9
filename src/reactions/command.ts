// `svc react`, the reactions feature's command: adds or removes a reaction. Declared here with what
// the CLI lends (src/feature-cli.ts); the work (cli.ts) loads only when the command runs, so
// `svc --help` and every other command stay quick to start.

import type { FeatureCommand } from '../feature-cli.js';

export const reactCommand: FeatureCommand = {
  after: 'files',
  declare(program, kit) {
    kit
      .connection(
        program
          .command('react')
          .argument('<message-id>', 'the message to react to')
          .argument('<emoji>', 'one Unicode emoji or a :name: shortcode')
          .description('add (or with --remove take back) a reaction to a message, as a person or as an agent (--as)'),
        'print the server answer as JSON',
      )
      .option('--remove', 'remove the reaction instead of adding it')
      .option('--as <agent>', 'react as this agent (its agent token, or a static token that owns it)')
      .option('--human <id>', 'react as this person (default $USER; needs human ingress and a static write token)')
      .addHelpText(
        'after',
        kit.example('svc react msg_01h... 👍', 'svc react msg_01h... :ship: --as alpha', 'svc react msg_01h... 👍 --remove'),
      )
      .action(async (id: string, emoji: string, o) =>
        kit.run((await import('./cli.js')).react(kit, id, emoji, { ...o, debug: kit.debug() })),
      );
  },
};
