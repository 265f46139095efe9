// One io object for every command: output, colour decision, and the TTY question.

import chalk, { Chalk, type ChalkInstance } from 'chalk';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  color: ChalkInstance;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  const tty = Boolean(process.stdout.isTTY);
  const useColor = tty && !process.env.NO_COLOR;
  return {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    // The decision is ours (a TTY and no NO_COLOR): chalk's own detection also turns colour off
    // whenever CI is set, even on a real terminal. Keep its level when it found more than basic.
    color: new Chalk({ level: useColor ? Math.max(chalk.level, 1) as 1 | 2 | 3 : 0 }),
    isTTY: tty && Boolean(process.stdin.isTTY),
    env: process.env,
  };
}

/** Exit codes of CONTRACT.md. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
