// The `svc` command line: the root command and its global options; each command is declared in
// src/cli/commands/<name>/command.ts beside the work it runs, or by a feature in its own folder
// (src/feature-commands.ts lists them). Built here without side effects, so a
// test can read the command tree; src/cli/main.ts runs it, or only the core command named
// (src/cli/command-loaders.ts).

import type { Command } from 'commander';
import type { Io } from './io.js';
import type { Run } from './options.js';
import { declareInit } from './commands/init/command.js';
import { declareServe } from './commands/serve/command.js';
import { declareMcp } from './commands/mcp/command.js';
import { declareConnect } from './commands/connect/command.js';
import { declareStore } from './commands/store/command.js';
import { declareBackup } from './commands/backup/command.js';
import { declareRestore } from './commands/restore/command.js';
import { declareExport } from './commands/export/command.js';
import { declareImport } from './commands/import/command.js';
import { declareRooms } from './commands/rooms/command.js';
import { declareAgents } from './commands/agents/command.js';
import { declareApply } from './commands/apply/command.js';
import { declareTail } from './commands/tail/command.js';
import { declareConsole } from './commands/console/command.js';
import { declareDoctor } from './commands/doctor/command.js';
import { declareInvite } from './commands/invite/command.js';
import { declareRelay } from './commands/relay/command.js';
import { declareSend } from './commands/send/command.js';
import { declareFiles } from './commands/files/command.js';
import { declareEdit } from './commands/edit/command.js';
import { declareDelete } from './commands/delete/command.js';
import { declareRedact } from './commands/redact/command.js';
import { declareVersions } from './commands/versions/command.js';
import { declareRead } from './commands/read/command.js';
import { declareAgent } from './commands/agent/command.js';
import { declareSearch } from './commands/search/command.js';
import type { FeatureCommand } from '../feature-cli.js';
import { featureCommands } from '../feature-commands.js';
import { featureKit } from './feature-kit.js';
import { rootProgram } from './root.js';

/** The `svc` program writing to `io`; a command's exit code goes to `setExit`. */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const run = (p: Promise<number>) => p.then(setExit);
  const program = rootProgram();

  // In this order in `svc --help`.
  declareInit(program, io, run);
  declareServe(program, io, run);
  declareMcp(program, io, run);
  declareConnect(program, io, run);
  declareStore(program, io, run);
  declareBackup(program, io, run);
  declareRestore(program, io, run);
  declareExport(program, io, run);
  declareImport(program, io, run);
  declareRooms(program, io, run);
  declareAgents(program, io, run);
  declareApply(program, io, run);
  declareTail(program, io, run);
  declareConsole(program, io, run);
  declareDoctor(program, io, run);
  declareInvite(program, io, run);
  declareRelay(program, io, run);
  declareSend(program, io, run);
  declareFiles(program, io, run);
  declareEdit(program, io, run);
  declareDelete(program, io, run);
  declareRedact(program, io, run);
  declareVersions(program, io, run);
  declareRead(program, io, run);
  declareAgent(program, io, run);
  declareSearch(program, io, run);
  for (const c of featureCommands) addFeatureCommand(program, c, io, run);
  return program;
}

/** Declares a feature's command and moves it to just after the one it names (its place in `svc --help`). */
function addFeatureCommand(program: Command, c: FeatureCommand, io: Io, run: Run): void {
  const before = program.commands.length;
  c.declare(program, featureKit(program, io, run));
  if (c.after === undefined) return;
  // Commander lists commands in the order of this array; it offers no other way to place one.
  const list = program.commands as Command[];
  const added = list.splice(before);
  const at = list.findIndex((x) => x.name() === c.after);
  list.splice(at < 0 ? list.length : at + 1, 0, ...added);
}
