// The client commands (rooms, agents, apply, tail, doctor) are declared here; each hands a plain
// function in src/cli/commands/ its flags. (invite and relay register themselves in main.ts.)

import { type Command, Option } from 'commander';
import type { Io } from './io.js';
import { collect, connection, example, positiveInt } from './options.js';

// Each command's module (and the client, undici, the config schema) loads only when that command
// runs: `svc --help` and one-shot commands stay quick to start.
const roomsMod = () => import('./commands/rooms/run.js');
const agentsMod = () => import('./commands/agents/run.js');

export function registerClientCommands(program: Command, io: Io, run: (p: Promise<number>) => Promise<void>): void {
  const debug = () => Boolean(program.opts().debug);
  const flags = <T extends object>(o: T) => ({ ...o, debug: debug() });

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

  const agentsCmd = program.command('agents').description('list, inspect, register and remove agents');
  agentsCmd.addHelpText('after', example('svc agents list', 'svc agents register --id alpha --name "Alpha"'));

  connection(agentsCmd.command('list').description('list agents (all pages)'))
    .option('--limit <n>', 'only the newest N agents', positiveInt)
    .addHelpText('after', example('svc agents list'))
    .action(async (o) => run((await agentsMod()).agentsList(io, flags(o))));

  connection(agentsCmd.command('get').argument('<id>', 'agent id').description('show one agent'))
    .addHelpText('after', example('svc agents get alpha'))
    .action(async (id: string, o) => run((await agentsMod()).agentsGet(io, id, flags(o))));

  connection(
    agentsCmd.command('register').description('register an agent id to the calling credential (admin or attach)'),
    'print the registration as JSON',
  )
    .option('--id <id>', 'agent id (default: derived from --name)')
    .option('--name <name>', 'display name')
    .addHelpText('after', example('svc agents register --id alpha --name "Alpha"'))
    .action(async (o) => run((await agentsMod()).agentsRegister(io, flags(o))));

  connection(
    agentsCmd.command('token').argument('<id>', 'agent id').description('print the token kept for an agent (to use it on another machine)'),
    'print {agent_id, network_id, url, token, file} as JSON',
  )
    .addHelpText('after', example('svc agents token alpha', 'SVC_TOKEN="$(svc agents token alpha)" svc send --room general hi'))
    .action(async (id: string, o) => run((await agentsMod()).agentsToken(io, id, flags(o))));

  connection(
    agentsCmd.command('delete').argument('<id>', 'agent id').description('soft-remove an agent (admin; its generated token stops working)'),
    'print the answer as JSON',
  )
    .addHelpText('after', example('svc agents delete alpha'))
    .action(async (id: string, o) => run((await agentsMod()).agentsDelete(io, id, flags(o))));

  // OAuth grants (#27 part 2): `svc agents grants` lists, `svc agents grants revoke ID` revokes.
  connection(
    agentsCmd
      .command('grants')
      .argument('[action]', 'revoke: revoke the grant ID and every token of it')
      .argument('[id]', 'the grant to revoke')
      .description('list what people approved for OAuth clients (client, agent, scopes, expiry), or revoke one (admin)'),
  )
    .addHelpText('after', example('svc agents grants', 'svc agents grants --json', 'svc agents grants revoke GRANT_ID'))
    .action(async (action: string | undefined, id: string | undefined, o) =>
      run((await import('./commands/agents/grants.js')).grantsCommand(io, action, id, flags(o))),
    );

  connection(
    program
      .command('apply')
      .argument(
        '<file>',
        'a config, or a file with only rooms:, auth.tokens (with agents), webhooks: and inbound_hooks:, whose declarations to apply',
      )
      .description(
        'reconcile a running server with the rooms, agent bindings, webhooks and inbound hooks a file declares (admin); exit 1 on any failure',
      ),
    'print the server answer (or the plan) as JSON',
  )
    .option('--dry-run', 'show what would change without applying it')
    .addHelpText(
      'after',
      `${example('svc apply rooms.yaml --dry-run', 'SVC_TOKEN=... svc apply svc.yaml')}\n\nThe server and operator token come from --config, else ./svc.yaml, else FILE itself. Token values are never sent: a binding names its token as token:<id>. Hook secrets are: read from each secret_env here, sent to the server, never shown.`,
    )
    .action(async (file: string, o) => run((await import('./commands/apply/run.js')).applyCommand(io, file, flags(o))));

  connection(
    program.command('tail').description('follow the live event stream; reconnects and resumes (Last-Event-ID) after a drop'),
    'print one event envelope (JSON) per line',
  )
    .option('--room <id>', 'only events of this room and its threads (repeatable, or comma-separated)', collect)
    .option('--type <type>', 'only this event type, or a prefix like message.* (repeatable, or comma-separated)', collect)
    .option('--since <event-id>', 'resume after this event id (replays newer events the server still buffers)')
    .option('--count <n>', 'exit after printing N events', positiveInt)
    .option('--as <agent>', "follow as this agent (its kept token is used in place of the config's operator token)")
    .addHelpText('after', example('svc tail --room general --type message.created', 'svc tail --json | jq .message.parts'))
    .action(async (o) => run((await import('./commands/tail/run.js')).tailCommand(io, flags(o))));

  connection(
    program
      .command('console')
      .description("print a one-time sign-in link to the web console (admin; the config's operator token by default)"),
    'print {url, expires_at} as JSON',
  )
    .option('--expires <duration>', 'how long the link works: 30s, 5m (default 2m, at most 10m)')
    .addHelpText('after', example('svc console', 'svc console --config /etc/svc/svc.yaml'))
    .action(async (o) => run((await import('./commands/console/run.js')).consoleCommand(io, flags(o))));

  connection(
    program
      .command('doctor')
      .description('check the config, its file mode, the running server, compatibility, warnings and pairings; exit 1 when a check fails'),
    'print the checks as JSON',
  )
    .addHelpText('after', example('svc doctor', 'svc doctor --config /etc/svc/svc.yaml --token "$SVC_TOKEN"'))
    .action(async (o) => run((await import('./commands/doctor/run.js')).doctorCommand(io, flags(o))));
}
