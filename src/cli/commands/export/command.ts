// `svc export [-o FILE] [--with-secrets] [--with-files]`: asks the running server for the network as JSON Lines
// (GET /v1/export). Declared here; the work (run.ts) loads only when the command runs, so `svc
// --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareExport(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);
  connection(
    program
      .command('export')
      .description("write the running server's network as JSON Lines, from one consistent snapshot while writes go on (admin token)")
      .option('-o, --output <file>', 'write to this file (made once the export is complete) instead of stdout')
      .option('--with-secrets', 'include agent token hashes and OAuth state, so agent tokens keep working after an import')
      .option('--with-files', 'include the bytes of the files messages reference, so they download after an import'),
    'print the summary as JSON (with -o)',
  )
    .addHelpText('after', example('svc export -o home.jsonl', 'svc import home.jsonl --config new/svc.yaml   # server stopped'))
    .action(async (o) =>
      run(
        (await import('./run.js')).exportCommand(
          io,
          { output: o.output, withSecrets: Boolean(o.withSecrets), withFiles: Boolean(o.withFiles) },
          flags(o),
        ),
      ),
    );
}
