// The help texts of `svc`, read in-process from the program the CLI builds (src/cli/program.ts):
// a process per command costs ~0.15 s of CPU. test/docs/cli-reference.test.ts checks that these
// texts are what the `svc` process prints.

import type { Command } from 'commander';
import { processIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';

/** The `svc` program as the CLI builds it. */
export const svcProgram = (): Command => buildProgram(processIo(), () => {});

/** What `svc ... --help` prints for `cmd` to a pipe: no colours, the 80 columns commander gives one. */
export function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), getOutHelpWidth: () => 80, getOutHasColors: () => false });
  cmd.outputHelp();
  return out;
}

/** What `svc ...path --help` prints. */
export function helpAt(path: string[], root: Command = svcProgram()): string {
  let cmd = root;
  for (const name of path) {
    const sub = cmd.commands.find((c) => c.name() === name);
    if (!sub) throw new Error(`svc ${path.join(' ')}: no such command`);
    cmd = sub;
  }
  return helpOf(cmd);
}
