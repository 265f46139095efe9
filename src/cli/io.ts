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
    color: useColor ? chalk : new Chalk({ level: 0 }),
    isTTY: tty && Boolean(process.stdin.isTTY),
    env: process.env,
  };
}

/** Exit codes of CONTRACT.md. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
