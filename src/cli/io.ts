// One io object for every command: output, colour decision, and the TTY question.

import chalk, { Chalk } from 'chalk';
import { envValue } from '../config/env.js';
import type { CommandIo } from '../feature-cli.js';
import { INVISIBLE } from './format.js';

/** Where the CLI writes: what a feature's command gets (src/feature-cli.ts), and whether it is a terminal. */
export interface Io extends CommandIo {
  isTTY: boolean;
}

export function processIo(): Io {
  const tty = Boolean(process.stdout.isTTY);
  const useColor = tty && envValue(process.env, 'NO_COLOR') === undefined;
  return {
    out: (l) => process.stdout.write(`${terminalSafe(l)}\n`),
    err: (l) => process.stderr.write(`${terminalSafe(l)}\n`),
    // The decision is ours (a TTY and no NO_COLOR): chalk's own detection also turns colour off
    // whenever CI is set, even on a real terminal. Keep its level when it found more than basic.
    color: new Chalk({ level: useColor ? (Math.max(chalk.level, 1) as 1 | 2 | 3) : 0 }),
    isTTY: tty && Boolean(process.stdin.isTTY),
    env: process.env,
  };
}

// Our own colour codes (SGR, ESC [ ... m) pass; any other control character or bidi/invisible
// character becomes `?`. Values are cleaned by oneLine already: this is the last guard for a
// value a command printed without it.
// eslint-disable-next-line no-control-regex
const UNSAFE = /\x1b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** A line as written to the terminal: only newlines, tabs and colour codes survive as control characters. */
export function terminalSafe(line: string): string {
  return line.replace(UNSAFE, (m) => (m.length > 1 ? m : '?')).replace(INVISIBLE, '?');
}

/** Exit codes: 0 success, 1 failure, 2 usage error (docs/cli.md). */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
