// `svc files get`: downloads a file that a message references. Declared here; the work (get.ts)
// loads only when the command runs, so `svc --help` and every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, type Run } from '../../options.js';

export function declareFiles(program: Command, io: Io, run: Run): void {
  const debug = () => Boolean(program.opts().debug);
  const cmd = program.command('files').description('files shared in messages (upload them with svc send --file)');
  cmd.addHelpText(
    'after',
    example('svc files get file_01J...', 'svc files get file_01J... -o report.pdf', 'svc files get file_01J... -o - | less'),
  );
  connection(
    cmd
      .command('get')
      .argument('<id>', "file id (file_...), as a message's file part names it")
      .description('download a file into the current folder under its name, or where -o says (- for stdout); a cut-off download resumes'),
    "print the downloaded file's details as JSON",
  )
    .option('-o, --output <path>', "write here (- for stdout) instead of the file's own name in the current folder")
    .option('--force', 'overwrite an existing file')
    .option('--as <agent>', 'read as this agent (its agent token, or a static token that owns it)')
    .action(async (id: string, o) => run((await import('./get.js')).filesGet(io, id, { ...o, debug: debug() })));
}
