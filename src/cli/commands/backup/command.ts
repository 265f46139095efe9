// `svc backup DIR`: asks the running server for an online backup of its sqlite store. Declared
// here; the work (run.ts) loads only when the command runs, so `svc --help` and every other
// command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, withDebug, type Run } from '../../options.js';

export function declareBackup(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  connection(
    program
      .command('backup')
      .argument('<dir>', "a new or empty folder on the server's machine (a relative path is taken from the current folder)")
      .description(
        "back the running server's sqlite store up while writes go on: a checkpointed svc.db and the journal tail (admin token)",
      ),
    'print the backup manifest as JSON',
  )
    .addHelpText('after', example('svc backup /var/backups/svc/2026-11-29', 'svc restore /var/backups/svc/2026-11-29   # server stopped'))
    .action(async (dir: string, o) => run((await import('./run.js')).backupCommand(io, dir, flags(o))));
}
