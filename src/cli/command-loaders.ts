// The core commands of `svc` by name, each declaration loaded on its own: `svc rooms list` needs
// the rooms declaration only, and the others (with the features') cost a command about 25 ms of its
// start (~150 ms). program.ts declares them all, for `svc --help`, the docs, a mistyped name and
// the features' commands; test/cli/command-loaders.unit.test.ts holds this list to it.

import type { Command } from 'commander';
import type { Io } from './io.js';
import type { Run } from './options.js';
import { rootProgram } from './root.js';

type Declare = (program: Command, io: Io, run: Run) => void;

export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<Declare>>> = {
  init: async () => (await import('./commands/init/command.js')).declareInit,
  serve: async () => (await import('./commands/serve/command.js')).declareServe,
  mcp: async () => (await import('./commands/mcp/command.js')).declareMcp,
  connect: async () => (await import('./commands/connect/command.js')).declareConnect,
  store: async () => (await import('./commands/store/command.js')).declareStore,
  backup: async () => (await import('./commands/backup/command.js')).declareBackup,
  restore: async () => (await import('./commands/restore/command.js')).declareRestore,
  export: async () => (await import('./commands/export/command.js')).declareExport,
  import: async () => (await import('./commands/import/command.js')).declareImport,
  rooms: async () => (await import('./commands/rooms/command.js')).declareRooms,
  agents: async () => (await import('./commands/agents/command.js')).declareAgents,
  apply: async () => (await import('./commands/apply/command.js')).declareApply,
  tail: async () => (await import('./commands/tail/command.js')).declareTail,
  console: async () => (await import('./commands/console/command.js')).declareConsole,
  doctor: async () => (await import('./commands/doctor/command.js')).declareDoctor,
  invite: async () => (await import('./commands/invite/command.js')).declareInvite,
  relay: async () => (await import('./commands/relay/command.js')).declareRelay,
  send: async () => (await import('./commands/send/command.js')).declareSend,
  files: async () => (await import('./commands/files/command.js')).declareFiles,
  edit: async () => (await import('./commands/edit/command.js')).declareEdit,
  delete: async () => (await import('./commands/delete/command.js')).declareDelete,
  redact: async () => (await import('./commands/redact/command.js')).declareRedact,
  versions: async () => (await import('./commands/versions/command.js')).declareVersions,
  read: async () => (await import('./commands/read/command.js')).declareRead,
  agent: async () => (await import('./commands/agent/command.js')).declareAgent,
  search: async () => (await import('./commands/search/command.js')).declareSearch,
};

/** The core command `args` (the arguments after `svc`) runs, when it alone need be declared. */
export function commandOf(args: readonly string[]): string | undefined {
  let i = 0;
  while (args[i] === '--debug') i++;
  const name = args[i];
  return name !== undefined && Object.hasOwn(COMMAND_LOADERS, name) ? name : undefined;
}

/** The program with only the core command `name` declared. */
export async function programWith(name: string, io: Io, setExit: (code: number) => void): Promise<Command> {
  const program = rootProgram();
  const declare = await COMMAND_LOADERS[name]!();
  declare(program, io, (p) => p.then(setExit));
  return program;
}
