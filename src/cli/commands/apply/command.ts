// `svc apply <file>`: reconciles a running server with what a file declares (web hooks: hooks.ts).
// Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and every
// other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareApply(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('apply')
      .argument(
        '<file>',
        'a config, or a file with only rooms:, auth.tokens (with agents), webhooks:, inbound_hooks: and a2a_agents:, whose declarations to apply',
      )
      .description(
        'reconcile a running server with the rooms, agent bindings, webhooks, inbound hooks and remote A2A agents a file declares (admin); exit 1 on any failure',
      ),
    'print the server answer (or the plan) as JSON',
  )
    .option('--dry-run', 'show what would change without applying it')
    .addHelpText(
      'after',
      `${example('svc apply rooms.yaml --dry-run', 'SVC_TOKEN=... svc apply svc.yaml')}\n\nThe server and operator token come from --config, else ./svc.yaml, else FILE itself. Token values are never sent: a binding names its token as token:<id>. Hook secrets and A2A agent tokens are: read from each secret_env and auth_env here, sent to the server, never shown.`,
    )
    .action(async (file: string, o) => run((await import('./run.js')).applyCommand(io, file, flags(o))));
}
