// What the CLI lends the commands features declare (src/feature-cli.ts): its io, the program's
// --debug, the shared option helpers, and, loaded when a command runs, the client wrapper and the
// formatting every command uses.

import type { Command } from 'commander';
import type { CommandKit, CommandWork } from '../feature-cli.js';
import type { Io } from './io.js';
import { connection, example, positiveInt, type Run } from './options.js';

/** The kit for `program`'s feature commands, writing to `io`. */
export function featureKit(program: Command, io: Io, run: Run): CommandKit {
  return {
    io,
    run,
    debug: () => Boolean(program.opts().debug),
    connection,
    example,
    positiveInt,
    work: () => loadWork(io),
  };
}

async function loadWork(io: Io): Promise<CommandWork> {
  const [{ withClient }, { json, table }, { EXIT }, { sender }] = await Promise.all([
    import('./with-client.js'),
    import('./format.js'),
    import('./io.js'),
    import('./commands/send/run.js'),
  ]);
  return {
    withClient: (name, flags, work, agent) =>
      withClient(io, name, flags, (client, target, pick) => work(client, target, pick?.agentId), agent ? { agent } : {}),
    json,
    table,
    sender: (f) => sender(f, io.env),
    exit: EXIT,
  };
}
