// docs/cli.md names every command and subcommand the CLI has, with the flags its --help lists.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cli } from '../helpers/cli.js';
import { ROOT } from '../helpers/server.js';

const test = suite('docs/cli.md');

/** The subcommand names of a --help text (its Commands: list, `help` left out). */
function commandsOf(help: string): string[] {
  const block = /^Commands:\n([\s\S]*?)(?:\n\n|(?![\s\S]))/m.exec(help)?.[1] ?? '';
  return [...block.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
}

/** Every command path of the CLI, leaves only (`rooms create`, not `rooms`). */
async function leaves(prefix: string[] = []): Promise<string[][]> {
  const help = (await cli([...prefix, '--help'])).stdout;
  const subs = commandsOf(help);
  if (subs.length === 0) return [prefix];
  const out: string[][] = [];
  for (const s of subs) out.push(...(await leaves([...prefix, s])));
  return out;
}

test('every command has a flags section that lists every flag of its --help', async () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
  const missing: string[] = [];
  const all = await leaves();
  assert.ok(all.length > 20, `found ${all.length} commands`);
  for (const c of all) {
    const heading = `### \`svc ${c.join(' ')}\` flags`;
    const at = doc.indexOf(heading);
    if (at < 0) {
      missing.push(heading);
      continue;
    }
    const section = doc.slice(at, doc.indexOf('\n### ', at + 1) === -1 ? undefined : doc.indexOf('\n### ', at + 1));
    const help = (await cli([...c, '--help'])).stdout;
    for (const flag of new Set([...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!))) {
      if (!section.includes(flag)) missing.push(`${c.join(' ')} ${flag}`);
    }
  }
  assert.equal(missing, []);
});

test.run();
