// A command run on its own declares only itself (src/cli/command-loaders.ts): the list of core
// commands it loads from is the whole program's (src/cli/program.ts), and each command so declared
// is the one the whole program has, to the last line of every help text.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commandsOf } from '../../scripts/cli-reference.js';
import { processIo } from '../../src/cli/io.js';
import { COMMAND_LOADERS, commandOf, programWith } from '../../src/cli/command-loaders.js';
import { featureKit } from '../../src/cli/feature-kit.js';
import { rootProgram } from '../../src/cli/root.js';
import { featureCommands } from '../../src/feature-commands.js';
import { helpOf, svcProgram } from '../helpers/help-text.js';

const t = suite('commands declared one at a time');

t("the loaders name the program's core commands, in its order", () => {
  const declared = rootProgram();
  for (const c of featureCommands)
    c.declare(
      declared,
      featureKit(declared, { ...processIo(), env: {} }, async () => undefined),
    );
  const features = new Set(declared.commands.map((c) => c.name()));
  assert.ok(features.size > 0, 'the features declare commands');
  const core = svcProgram()
    .commands.map((c) => c.name())
    .filter((n) => !features.has(n));
  assert.equal(Object.keys(COMMAND_LOADERS), core);
});

t("each command declared alone is the whole program's: every help text of it and its subcommands", async () => {
  const whole = svcProgram();
  for (const name of Object.keys(COMMAND_LOADERS)) {
    const alone = await programWith(name, { ...processIo(), env: {} }, () => undefined);
    assert.equal(
      alone.commands.map((c) => c.name()),
      [name],
    );
    const mine = commandsOf(alone.commands[0]!, [name]);
    const theirs = commandsOf(whole.commands.find((c) => c.name() === name)!, [name]);
    assert.equal(
      mine.map((c) => [c.path.join(' '), helpOf(c.cmd)]),
      theirs.map((c) => [c.path.join(' '), helpOf(c.cmd)]),
    );
  }
});

t('only a core command named first (after --debug) runs alone; help, a feature command or a mistyped name get the whole program', () => {
  assert.is(commandOf(['rooms', 'list', '--url', 'http://x']), 'rooms');
  assert.is(commandOf(['--debug', 'send', 'general', 'hi']), 'send');
  for (const args of [[], ['--help'], ['-V'], ['help', 'rooms'], ['react', 'm1', '👍'], ['romos'], ['--url', 'x', 'rooms'], ['toString']])
    assert.is(commandOf(args), undefined, args.join(' '));
});

t.run();
