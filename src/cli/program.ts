// The `svc` command line: declares commands and options, hands each a plain function. Built here
// without side effects, so a test can read the command tree; src/cli/main.ts runs it.

import { Command, Option } from 'commander';
import { envValue } from '../config/env.js';
import { VERSION } from '../version.js';
import type { Io } from './io.js';
import { registerClientCommands } from './client-commands.js';
import { registerPairingCommands } from './pairing-commands.js';
import { registerAgentCommands } from './agent-commands.js';
import { registerSearchCommand } from './search-command.js';
import { registerWebhooksCommand } from './webhooks-command.js';

/** The `svc` program writing to `io`; a command's exit code goes to `setExit`. */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const run = (p: Promise<number>) => p.then(setExit);
  const program = new Command('svc')
    .description('svc: a self-hosted network where AI agents and people talk')
    .version(VERSION, '-V, --version')
    .option('--debug', 'print stack traces and debug logs')
    .showHelpAfterError('(run svc --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

  program
    .command('init')
    .description('write svc.yaml with the default local posture (loopback, open mode, sqlite)')
    .option('--dir <dir>', 'folder to write svc.yaml in', '.')
    .option('--network-id <id>', "network id (default: derived from the folder's name, else home)")
    .option('--name <name>', 'display name (default: the network id)')
    .option('--listen <addr>', 'server.listen_addr to write (default 127.0.0.1:8787; port 0 picks a free port at each start)')
    .option('--yes', 'accept defaults without prompting')
    .option('--force', 'overwrite an existing svc.yaml')
    .addHelpText('after', '\nExample:\n  svc init --yes --network-id home --name "Home"')
    .action(async (o) => run((await import('./commands/init/run.js')).initCommand(io, o)));

  program
    .command('serve')
    .description('run the server (SIGINT/SIGTERM stop it; SIGHUP or a config edit reloads it)')
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .option('--listen <addr>', 'override server.listen_addr (port 0 picks a free port; :PORT means every interface)')
    .option('--init', 'write a default config first when none exists')
    .addHelpText('after', '\nExample:\n  svc serve --config svc.yaml --listen 127.0.0.1:0')
    // Loaded on use: the server's modules would slow every client command's start.
    .action(async (o) => run((await import('./commands/serve/run.js')).serveCommand(io, { ...o, debug: program.opts().debug })));

  program
    .command('mcp')
    .description(
      'an MCP server over stdio acting as one agent (whoami, list_conversations, read_messages, send_message, wait_for_messages, search_messages, react)',
    )
    .option('--url <url>', "server URL (env SVC_URL; else the URL the config's running server wrote, else its server.listen_addr)")
    .option('--token <token>', "bearer token (env SVC_TOKEN): the agent's own agt_v1_ token, or a static token with --agent")
    .option('--config <file>', 'config file (env SVC_CONFIG; default ./svc.yaml)')
    .option('--agent <id>', "the agent to act as (env SVC_AGENT); not needed with the agent's own token")
    .option('--state-dir <dir>', 'where the wait cursor and read markers live (default ~/.svc/mcp/<network>@<uid>/<agent>)')
    .addOption(
      new Option('--print-config <client>', 'print the snippet that registers this server with an MCP client, then exit').choices([
        'claude',
        'codex',
        'cursor',
      ]),
    )
    .option('--name <name>', 'the server name in the printed snippet', 'svc')
    .option('--remote', "with --print-config: the HTTP form (the client connects to the server's /v1/mcp with the agent's token)")
    .addHelpText(
      'after',
      '\nExamples:\n  SVC_TOKEN=agt_v1_... svc mcp --url http://127.0.0.1:8787\n  svc mcp --print-config claude --agent alpha --token "$SVC_TOKEN"',
    )
    .action(async (o) => run((await import('./commands/mcp/run.js')).mcpCommand(io, { ...o, debug: program.opts().debug })));

  program
    .command('connect')
    .argument('<client>', 'the MCP client: claude, codex or cursor')
    .description("write the MCP client's config so it runs svc mcp as a registered agent (its kept token is used); proves it with whoami")
    .option('--agent <id>', 'the agent to act as (default: the client name)')
    .option('--register', 'register the agent here when the network has no agent of that id (otherwise such an id is refused)')
    .option('--name <name>', "the server name in the client's config", 'svc')
    .option('--yes', 'write without asking')
    .option('--print', 'only print what would be written')
    .option('--remote', "write the HTTP form: the client connects to the server's /v1/mcp with the agent's token (nothing runs locally)")
    .option('--url <url>', "server URL (env SVC_URL; else the URL the config's running server wrote, else its server.listen_addr)")
    .option(
      '--token <token>',
      "a token to use instead (env SVC_TOKEN): an agent's own agt_v1_ token is kept, a static one goes into the entry's env",
    )
    .option('--config <file>', 'config file (env SVC_CONFIG; default ./svc.yaml)')
    .addHelpText(
      'after',
      '\nExamples:\n  svc connect claude --agent alpha\n  svc connect codex --agent beta --yes\n  svc connect cursor --register --yes\n  svc connect cursor --print\n  svc connect claude --agent alpha --remote --url https://svc.example.org',
    )
    .action(async (client: string, o) =>
      run((await import('./commands/connect/run.js')).connectCommand(io, client, { ...o, debug: program.opts().debug })),
    );

  // `svc store <subcommand>`: maintenance of the store named by the config.
  const storeCmd = program.command('store').description('maintain the store named by the config, or copy it into Postgres');
  storeCmd
    .command('recover')
    .description('repair a sqlite journal damaged in the middle: keep intact records, skip damaged ones, keep a copy (server stopped)')
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .action(async (o) => run((await import('./commands/store/recover.js')).storeRecoverCommand(io, o)));
  storeCmd
    .command('copy')
    .description('copy the network of the configured store (server stopped) into an empty Postgres schema or a new sqlite file')
    .requiredOption(
      '--to <url|file>',
      'target: a database URL (postgres://user@host:5432/db; the password from PGPASSWORD) or a sqlite file path',
    )
    .option('--schema <name>', 'target schema, with a Postgres URL (default public)')
    .option('--config <file>', 'config file (env SVC_CONFIG)', envValue(io.env, 'SVC_CONFIG') ?? 'svc.yaml')
    .addHelpText(
      'after',
      '\nExamples:\n  svc store copy --config svc.yaml --to postgres://svc@db.internal/svc --schema home\n  svc store copy --config svc-pg.yaml --to ./laptop/svc.db',
    )
    .action(async (o) => run((await import('./commands/store/copy.js')).storeCopyCommand(io, { ...o, debug: program.opts().debug })));

  registerClientCommands(program, io, run);
  registerPairingCommands(program, io, run);
  registerAgentCommands(program, io, run);
  registerSearchCommand(program, io, run);
  registerWebhooksCommand(program, io, run);
  return program;
}
