// What `svc serve` says after its listening line: the commands to run next and where the docs
// are. On stderr, so that stdout stays the lifecycle lines scripts parse (listening, stopped).

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the installed package (its docs/ sits there). */
export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** A shell word: quoted when it holds anything but safe characters. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The next-step lines for a server started with `configFile` (absolute) from `cwd`: `--config F`
 * appears unless the config is `./svc.yaml`.
 */
export function nextStepLines(configFile: string, cwd: string, packageDir: string = PACKAGE_DIR): string[] {
  const abs = path.resolve(configFile);
  const rel = path.relative(cwd, abs);
  const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs;
  const config = abs === path.resolve(cwd, 'svc.yaml') ? '' : ` --config ${shellWord(shown)}`;
  return [
    'next, in another terminal:',
    `  svc console${config}    (a one-time sign-in link for the browser console)`,
    `  svc connect claude --agent ID --register${config}    (an agent in Claude Code; also codex, cursor)`,
    `  docs: ${path.join(packageDir, 'docs', 'README.md')}`,
  ];
}
