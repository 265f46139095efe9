// `svc connect <client>`: writes an MCP client's config to run svc mcp as an agent, and proves it.
// Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and every
// other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import type { Run } from '../../options.js';

export function declareConnect(program: Command, io: Io, run: Run): void {
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
    .action(async (client: string, o) => run((await import('./run.js')).connectCommand(io, client, { ...o, debug: program.opts().debug })));
}
