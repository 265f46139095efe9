// The help texts of `svc`, read in-process from the program the CLI builds (src/cli/program.ts,
// through scripts/cli-reference.ts, which writes them into docs/cli.md):
// a process per command costs ~0.15 s of CPU. test/docs/cli-reference.test.ts checks that these
// texts are what the `svc` process prints.

import type { Command } from 'commander';
import { helpOf, svcProgram } from '../../scripts/cli-reference.js';

export { helpOf, svcProgram };

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
