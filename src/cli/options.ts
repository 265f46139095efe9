// What several commands declare alike: list options (and splitList, which reads them), whole
// numbers, the connection flags, the examples under a command's help. Commander only: a command's
// declaration stays cheap to load.

import { type Command, InvalidArgumentError } from 'commander';

/** Runs a command's work and records its exit code. */
export type Run = (p: Promise<number>) => Promise<void>;

/** A repeatable option: each use adds one value. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Repeatable flags also take comma-separated lists: `--member a,b --member c`. */
export function splitList(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of 1 or more');
  return n;
}

/** --url, --token, --config (and --json for commands that print data). */
export function connection(cmd: Command, jsonHelp = 'print JSON instead of a table'): Command {
  return cmd
    .option('--url <url>', "server URL (env SVC_URL; else the URL the config's running server wrote, else its server.listen_addr)")
    .option('--token <token>', 'bearer token (env SVC_TOKEN, which keeps it out of ps and shell history)')
    .option('--config <file>', 'config file (env SVC_CONFIG; default ./svc.yaml)')
    .option('--json', jsonHelp);
}

export const example = (...lines: string[]) => `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  ${l}`).join('\n')}`;

/** A command's flags with the program's --debug added (`svc --debug <command>`). */
export const withDebug =
  (program: Command) =>
  <T extends object>(o: T) => ({ ...o, debug: Boolean(program.opts().debug) });
