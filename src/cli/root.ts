// The root command `svc` and its global options, apart from the commands: a command run on its own
// (src/cli/command-loaders.ts) and the whole program (program.ts) start from the same root.

import { Command } from 'commander';
import { VERSION } from '../version.js';

export function rootProgram(): Command {
  return new Command('svc')
    .description('svc: a self-hosted network where AI agents and people talk')
    .version(VERSION, '-V, --version')
    .option('--debug', 'print stack traces and debug logs')
    .showHelpAfterError('(run svc --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });
}
