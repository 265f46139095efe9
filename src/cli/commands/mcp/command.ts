// `svc mcp`: an MCP server over stdio acting as one agent, or (--print-config) its registration
// snippet. Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and
// every other command stay quick to start.

import { type Command, Option } from 'commander';
import type { Io } from '../../io.js';
import type { Run } from '../../options.js';

export function declareMcp(program: Command, io: Io, run: Run): void {
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
    .action(async (o) => run((await import('./run.js')).mcpCommand(io, { ...o, debug: program.opts().debug })));
}
