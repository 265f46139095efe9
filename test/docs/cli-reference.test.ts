// docs/cli.md against the CLI's own command tree (src/cli/program.ts, built in this process without
// running; one `svc --help` process checks the texts are what the CLI prints): its flags part is
// what `npm run docs:cli` writes from the tree (every command and subcommand with every option),
// every command a heading names is a real one, every command has prose, and every flag the prose
// gives a command is one it has.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CLI_DOC, commandsOf, flagsHeading, flagsReference, withReference } from '../../scripts/cli-reference.js';
import { cli } from '../helpers/cli.js';
import { helpOf, svcProgram } from '../helpers/help-text.js';

const test = suite('docs/cli.md');

const DOC = readFileSync(CLI_DOC, 'utf8');
const ROOT_CMD = svcProgram();
/** Every command path of the CLI (`[]` is svc itself), with its command. */
const ALL = commandsOf(ROOT_CMD);

/** The text under the heading line at `at`, to the next heading of its level or higher. */
function sectionAt(md: string, at: number): string {
  const level = /^#+/.exec(md.slice(at))![0].length;
  const rest = md.slice(md.indexOf('\n', at) + 1);
  const next = new RegExp(`^#{1,${level}} `, 'm').exec(rest);
  return rest.slice(0, next ? next.index : undefined);
}

/** The command a list of words names (longest match: `agents grants revoke` is `agents grants`). */
function commandAt(words: string[]): { path: string[]; cmd: Command } | undefined {
  let found: { path: string[]; cmd: Command } | undefined;
  let cmd = ROOT_CMD;
  for (const [i, w] of words.entries()) {
    const sub = cmd.commands.find((c) => c.name() === w);
    if (!sub) break;
    cmd = sub;
    found = { path: words.slice(0, i + 1), cmd };
  }
  return found;
}

/** The command paths a heading's `svc ...` spans name: `svc webhooks list|retry` is two, `svc apply FILE` one. */
function headingCommands(heading: string): string[][] {
  return [...heading.matchAll(/`svc ([^`]*)`/g)].flatMap(([, span]) => {
    const words = span!.split(' ').filter((w) => /^[a-z][a-z|-]*$/.test(w));
    const last = words.pop();
    return last === undefined ? [[]] : last.split('|').map((alt) => [...words, alt]);
  });
}

/** The flags a command accepts: its own, and svc's (`--debug`, `--version`, `--help`). */
function flagsOf(cmd: Command): string[] {
  return [...cmd.options, ...ROOT_CMD.options].map((o) => o.long!).concat('--help');
}

test('the help texts read here are what the svc process prints', async () => {
  const [top, leaf] = await Promise.all([cli(['--help']), cli(['rooms', 'create', '--help'])]);
  assert.is(top.code, 0, top.stderr);
  assert.is(helpOf(ROOT_CMD), top.stdout);
  assert.is(helpOf(commandAt(['rooms', 'create'])!.cmd), leaf.stdout);
});

test('the flags part is what npm run docs:cli writes from the program', () => {
  const written = withReference(DOC, flagsReference());
  if (written === DOC) return;
  const stale = ALL.map(({ path, cmd }) => ({ heading: flagsHeading(path), help: helpOf(cmd).trimEnd() }))
    .filter(({ heading, help }) => !DOC.includes(`${heading}\n\n\`\`\`text\n${help}\n\`\`\``))
    .map(({ heading }) => heading);
  assert.unreachable(
    `docs/cli.md differs from the CLI (run npm run docs:cli); sections: ${stale.join(', ') || 'their order or what is between them'}`,
  );
});

test('every command and subcommand has a flags section that names each of its options', () => {
  assert.ok(ALL.length > 30, `found ${ALL.length} commands`);
  const missing: string[] = [];
  for (const { path, cmd } of ALL) {
    const at = DOC.indexOf(`${flagsHeading(path)}\n`);
    if (at < 0) {
      missing.push(flagsHeading(path));
      continue;
    }
    const section = sectionAt(DOC, at);
    for (const o of cmd.options) if (!section.includes(o.flags)) missing.push(`svc ${path.join(' ')} ${o.flags}`);
    for (const sub of cmd.commands)
      if (!new RegExp(`^ {2}${sub.name()}\\b`, 'm').test(section)) missing.push(`svc ${path.join(' ')} ${sub.name()}`);
  }
  assert.equal(missing, []);
});

test('every command a heading names is a real command', () => {
  const unknown: string[] = [];
  for (const m of DOC.matchAll(/^#+ .*`svc .*$/gm)) {
    for (const words of headingCommands(m[0])) {
      if (words.length > 0 && commandAt(words)?.path.length !== words.length) unknown.push(`${m[0]}: svc ${words.join(' ')}`);
    }
  }
  assert.equal(unknown, []);
});

test('every command has a heading of its own under "Commands"', () => {
  const at = DOC.indexOf('\n## Commands\n');
  assert.ok(at >= 0, 'no ## Commands section');
  const named = [...sectionAt(DOC, at + 1).matchAll(/^### .*$/gm)].flatMap((m) => headingCommands(m[0]).map((w) => w.join(' ')));
  const without = ALL.filter(({ path, cmd }) => path.length > 0 && cmd.commands.length === 0)
    .map(({ path }) => path.join(' '))
    .filter((c) => !named.some((n) => n === c || c.startsWith(`${n} `)));
  assert.equal(without, []);
});

test('every flag the prose of a command gives is one the command has', () => {
  const at = DOC.indexOf('\n## Commands\n') + 1;
  const body = DOC.indexOf('\n', at) + 1;
  const wrong: string[] = [];
  for (const m of sectionAt(DOC, at).matchAll(/^### .*$/gm)) {
    const section = sectionAt(DOC, body + m.index!);
    // The commands the section speaks of: its heading's, and any other it names as `svc <command>`.
    const cmds = headingCommands(m[0])
      .map((w) => commandAt(w))
      .concat([...section.matchAll(/\bsvc ((?:[a-z][a-z-]* ?)+)/g)].map((s) => commandAt(s[1]!.trim().split(' '))))
      .filter((c) => c !== undefined);
    const allowed = new Set(cmds.flatMap((c) => [c.cmd, ...c.cmd.commands]).flatMap(flagsOf));
    for (const f of new Set([...section.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((x) => x[0]))) {
      if (!allowed.has(f)) wrong.push(`${m[0]}: ${f}`);
    }
  }
  assert.equal(wrong, []);
});

test('a heading names its commands, alternatives and all', () => {
  assert.equal(headingCommands('### `svc webhooks list|deliveries`'), [
    ['webhooks', 'list'],
    ['webhooks', 'deliveries'],
  ]);
  assert.equal(headingCommands('### `svc apply FILE`'), [['apply']]);
  assert.equal(headingCommands('### `svc store recover` and `svc store copy`'), [
    ['store', 'recover'],
    ['store', 'copy'],
  ]);
  assert.equal(commandAt(['rooms', 'nope'])?.path, ['rooms']);
});

test.run();
