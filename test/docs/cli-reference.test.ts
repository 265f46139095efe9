// docs/cli.md names every command and subcommand the CLI has, with the flags its --help lists.
// The help texts come from the CLI's own command tree in this process (one `svc --help` process
// checks they are what the CLI prints): one process per command cost about 10 s of CPU.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { cli } from '../helpers/cli.js';
import { helpOf, svcProgram } from '../helpers/help-text.js';
import { ROOT } from '../helpers/server.js';

const test = suite('docs/cli.md');

/** The subcommand names of a --help text (its Commands: list, `help` left out). */
function commandsOf(help: string): string[] {
  const block = /^Commands:\n([\s\S]*?)(?:\n\n|(?![\s\S]))/m.exec(help)?.[1] ?? '';
  return [...block.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
}

/** Every command path of the CLI, leaves only (`rooms create`, not `rooms`), with its --help text. */
function leaves(cmd: Command, prefix: string[] = []): { path: string[]; help: string }[] {
  const help = helpOf(cmd);
  const subs = commandsOf(help);
  if (subs.length === 0) return [{ path: prefix, help }];
  return subs.flatMap((s) => {
    const sub = cmd.commands.find((c) => c.name() === s);
    if (!sub) throw new Error(`svc ${[...prefix, s].join(' ')} is listed but not found`);
    return leaves(sub, [...prefix, s]);
  });
}

test('the help texts read here are what the svc process prints', async () => {
  const root = svcProgram();
  const [top, leaf] = await Promise.all([cli(['--help']), cli(['rooms', 'create', '--help'])]);
  assert.is(top.code, 0, top.stderr);
  assert.is(helpOf(root), top.stdout);
  const rooms = root.commands.find((c) => c.name() === 'rooms')!;
  assert.is(helpOf(rooms.commands.find((c) => c.name() === 'create')!), leaf.stdout);
});

test('every command has a flags section that lists every flag of its --help', async () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
  const missing: string[] = [];
  const all = leaves(svcProgram());
  assert.ok(all.length > 20, `found ${all.length} commands`);
  for (const { path: c, help } of all) {
    const heading = `### \`svc ${c.join(' ')}\` flags`;
    const at = doc.indexOf(heading);
    if (at < 0) {
      missing.push(heading);
      continue;
    }
    const section = doc.slice(at, doc.indexOf('\n### ', at + 1) === -1 ? undefined : doc.indexOf('\n### ', at + 1));
    for (const flag of new Set([...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!))) {
      if (!section.includes(flag)) missing.push(`${c.join(' ')} ${flag}`);
    }
  }
  assert.equal(missing, []);
});

test.run();
