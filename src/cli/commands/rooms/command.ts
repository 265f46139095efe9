// `svc rooms list|get|create|delete|members`. Declared here; the work (run.ts) loads only when the
// command runs, so `svc --help` and every other command stay quick to start.

import { type Command, Option } from 'commander';
import type { Io } from '../../io.js';
import { collect, connection, example, positiveInt, withDebug, type Run } from '../../options.js';

const roomsMod = () => import('./run.js');

export function declareRooms(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  const roomsCmd = program.command('rooms').description('list, inspect, create and remove rooms, and manage their members');
  roomsCmd.addHelpText('after', example('svc rooms list', 'svc rooms create ops --name "Ops" --member alpha --member beta'));

  connection(roomsCmd.command('list').description('list rooms (all pages)'))
    .option('--limit <n>', 'only the newest N rooms', positiveInt)
    .addHelpText('after', example('svc rooms list --json | jq -r ".rooms[].id"'))
    .action(async (o) => run((await roomsMod()).roomsList(io, flags(o))));

  connection(roomsCmd.command('get').argument('<id>', 'room id').description('show one room'))
    .addHelpText('after', example('svc rooms get general'))
    .action(async (id: string, o) => run((await roomsMod()).roomsGet(io, id, flags(o))));

  connection(roomsCmd.command('create').argument('<id>', 'room id').description('create a room (admin)'), 'print the created room as JSON')
    .option('--name <name>', 'display name (default: the id)')
    .option('--member <agent>', 'member agent id, net:agent or FQID (repeatable, or comma-separated)', collect)
    .addOption(new Option('--visibility <v>', 'who can see the room').choices(['public', 'private']))
    .addOption(new Option('--write-policy <p>', 'who may write').choices(['members', 'registered_agents', 'operators']))
    .addHelpText('after', example('svc rooms create ops --name "Ops" --member alpha,beta --visibility private'))
    .action(async (id: string, o) => run((await roomsMod()).roomsCreate(io, id, flags(o))));

  connection(
    roomsCmd.command('delete').argument('<id>', 'room id').description('soft-remove a room (admin; messages are kept)'),
    'print the answer as JSON',
  )
    .addHelpText('after', example('svc rooms delete ops'))
    .action(async (id: string, o) => run((await roomsMod()).roomsDelete(io, id, flags(o))));

  connection(
    roomsCmd
      .command('members')
      .argument('<id>', 'room id')
      .description('print the members of a room, or change them with --add/--remove (admin)'),
  )
    .option('--add <agent>', 'add a member (repeatable, or comma-separated)', collect)
    .option('--remove <agent>', 'remove a member (repeatable, or comma-separated)', collect)
    .addHelpText('after', example('svc rooms members general', 'svc rooms members general --add gamma --remove beta'))
    .action(async (id: string, o) => run((await roomsMod()).roomsMembers(io, id, flags(o))));
}
