// `svc`: runs the command line (src/cli/program.ts) on this process's arguments.

import { CommanderError } from 'commander';
import { EXIT, processIo } from './io.js';
import { commandOf, programWith } from './command-loaders.js';
import { setV8Flags } from './heap.js';

/**
 * A reader that went away (`svc send --help | head`) is not an error of the command: on EPIPE the
 * process leaves quietly instead of dying with an unhandled 'error' event's stack trace.
 */
function exitQuietlyOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      throw err;
    });
  }
}

async function main(): Promise<void> {
  exitQuietlyOnBrokenPipe();
  setV8Flags();
  const io = processIo();
  let code: number = EXIT.ok;
  const setExit = (c: number) => (code = c);
  const name = commandOf(process.argv.slice(2));
  const program = name ? await programWith(name, io, setExit) : (await import('./program.js')).buildProgram(io, setExit);
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    io.err(`svc: ${(err as Error).message}`);
    if (program.opts().debug) io.err(String((err as Error).stack));
    process.exitCode = EXIT.failure;
    return;
  }
  process.exitCode = code;
}

await main();
