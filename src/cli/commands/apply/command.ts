// `svc apply <file>`: reconciles a running server with what a file declares (the sections features
// keep: src/feature-commands.ts).
// Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and every
// other command stay quick to start.

import type { Command } from 'commander';
import { featureApplySections } from '../../../feature-commands.js';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

/** `a, b and c`. */
const listed = (items: readonly string[]): string =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

export function declareApply(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);
  const sections = featureApplySections;
  const keys = ['rooms:', 'auth.tokens (with agents)', ...sections.flatMap((s) => s.keys.map((k) => `${k}:`))];
  const what = ['rooms', 'agent bindings', ...sections.flatMap((s) => s.what)];

  connection(
    program
      .command('apply')
      .argument('<file>', `a config, or a file with only ${listed(keys)}, whose declarations to apply`)
      .description(`reconcile a running server with the ${listed(what)} a file declares (admin); exit 1 on any failure`),
    'print the server answer (or the plan) as JSON',
  )
    .option('--dry-run', 'show what would change without applying it')
    .addHelpText(
      'after',
      `${example('svc apply rooms.yaml --dry-run', 'SVC_TOKEN=... svc apply svc.yaml')}\n\nThe server and operator token come from --config, else ./svc.yaml, else FILE itself. Token values are never sent: a binding names its token as token:<id>. Hook secrets and A2A agent tokens are: read from each secret_env and auth_env here, sent to the server, never shown.`,
    )
    .action(async (file: string, o) => run((await import('./run.js')).applyCommand(io, file, flags(o), sections)));
}
