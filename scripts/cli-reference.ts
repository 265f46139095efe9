// docs/cli.md's "Every command's flags" part, written from the CLI's own command tree
// (src/cli/program.ts, built without running): the help text of every command and subcommand, as
// `svc ... --help` prints it to a pipe. `npm run docs:cli` rewrites that part between its two
// markers; test/docs/cli-reference.test.ts fails while the document differs from what this writes,
// so a flag cannot be added, renamed or reworded in the code alone.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { processIo } from '../src/cli/io.js';
import { buildProgram } from '../src/cli/program.js';

export const CLI_DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'cli.md');
export const BEGIN = '<!-- Written by `npm run docs:cli` from the CLI itself (scripts/cli-reference.ts): change src/cli/, then run it. -->';
export const END = '<!-- End of the part `npm run docs:cli` writes. -->';

/** The `svc` program as the CLI builds it, with no environment: SVC_CONFIG would change a default shown. */
export const svcProgram = (env: NodeJS.ProcessEnv = {}): Command => buildProgram({ ...processIo(), env }, () => {});

/** What `svc ... --help` prints for `cmd` to a pipe: no colours, the 80 columns commander gives one. */
export function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), getOutHelpWidth: () => 80, getOutHasColors: () => false });
  cmd.outputHelp();
  return out;
}

/** Every command of the program, the program first, each before its subcommands, in declaration order. */
export function commandsOf(cmd: Command, prefix: string[] = []): { path: string[]; cmd: Command }[] {
  return [{ path: prefix, cmd }, ...cmd.commands.flatMap((sub) => commandsOf(sub, [...prefix, sub.name()]))];
}

/** The heading of a command's section in the generated part. */
export const flagsHeading = (commandPath: string[]): string => `### \`${['svc', ...commandPath].join(' ')}\` flags`;

/** The generated part: one section per command with its help text. */
export function flagsReference(root: Command = svcProgram()): string {
  return commandsOf(root)
    .map(({ path: p, cmd }) => `${flagsHeading(p)}\n\n\`\`\`text\n${helpOf(cmd).trimEnd()}\n\`\`\`\n`)
    .join('\n');
}

/** The document with its generated part replaced by `reference`. */
export function withReference(doc: string, reference: string): string {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/cli.md lacks the markers of its generated part (${BEGIN} ... ${END})`);
  return `${doc.slice(0, from + BEGIN.length)}\n\n${reference}\n${doc.slice(to)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const doc = readFileSync(CLI_DOC, 'utf8');
  const next = withReference(doc, flagsReference());
  if (next === doc) console.log('docs/cli.md: the flags reference is up to date');
  else {
    writeFileSync(CLI_DOC, next);
    console.log('docs/cli.md: the flags reference was rewritten');
  }
}
