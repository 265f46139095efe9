// `svc agents list|get|status|register|token|delete|grants` (grants: grants.ts; status: status.ts). Declared here; the work
// (run.ts) loads only when the command runs, so `svc --help` and every other command stay quick to
// start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, positiveInt, withDebug, type Run } from '../../options.js';

const agentsMod = () => import('./run.js');

export function declareAgents(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

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
    agentsCmd
      .command('status')
      .argument('[id]', 'agent id (default: every agent you may see)')
      .description("show delivery: what holds an agent's attachment, its wakes not acknowledged, its last ACK and read"),
    'print the delivery answer as JSON ({agents: [...]} without an ID)',
  )
    .addHelpText('after', example('svc agents status alpha', 'svc agents status'))
    .action(async (id: string | undefined, o) => run((await import('./status.js')).agentsStatus(io, id, flags(o))));

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
    // A grant id is base64url and may begin with '-': taken as the id, not as an unknown option.
    .allowUnknownOption()
    .addHelpText('after', example('svc agents grants', 'svc agents grants --json', 'svc agents grants revoke GRANT_ID'))
    .action(async (action: string | undefined, id: string | undefined, o) =>
      run((await import('./grants.js')).grantsCommand(io, action, id, flags(o))),
    );
}
