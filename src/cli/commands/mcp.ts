// svc mcp: an MCP server over stdio acting as one agent; or, with --print-config, the snippet that
// registers it with an MCP client. stdout carries the protocol, so every message goes to stderr.

import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_CLIENTS, registrationSnippet, type McpClientName } from '../../mcp/print-config.js';
import { AGENT_TOKEN_PREFIX } from '../../auth/credentials.js';
import { EXIT, type Io } from '../io.js';
import { resolveTarget, startCommandOf, UsageError } from '../target.js';
import { reportFailure, type ClientFlags } from '../with-client.js';

export interface McpFlags extends ClientFlags {
  agent?: string;
  stateDir?: string;
  printConfig?: string;
  name?: string;
}

/** How the snippet starts svc: `svc` when that is this install on PATH, else node and this bin/svc.js. */
function svcCommand(env: NodeJS.ProcessEnv): { command: string; args: string[] } {
  const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/svc.js');
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  const self = real(bin);
  const onPath = (env.PATH ?? '').split(path.delimiter).some((d) => d !== '' && real(path.join(d, 'svc')) === self);
  return onPath ? { command: 'svc', args: [] } : { command: process.execPath, args: [bin] };
}

function printConfig(io: Io, flags: McpFlags): number {
  const which = flags.printConfig as McpClientName;
  if (!MCP_CLIENTS.includes(which)) throw new UsageError(`--print-config: must be one of ${MCP_CLIENTS.join(', ')}`);
  const target = resolveTarget(flags, io.env);
  const agent = flags.agent ?? io.env.SVC_AGENT;
  const svc = svcCommand(io.env);
  const args = [...svc.args, 'mcp', '--url', target.url, ...(agent ? ['--agent', agent] : []), ...(flags.stateDir ? ['--state-dir', path.resolve(flags.stateDir)] : [])];
  const env: Record<string, string> = target.token !== undefined ? { SVC_TOKEN: target.token } : {};
  const { snippet, where } = registrationSnippet(which, { name: flags.name ?? 'svc', command: svc.command, args, env });
  for (const line of snippet) io.out(line);
  for (const line of where) io.err(`svc mcp: ${line}`);
  if (target.token !== undefined) io.err('svc mcp: the snippet holds the token: keep the file it goes into private (and out of version control)');
  else io.err('svc mcp: no token given (--token / SVC_TOKEN): add SVC_TOKEN to the env block if the server needs one');
  return EXIT.ok;
}

/** Serves MCP on stdin/stdout until stdin closes or a signal arrives. */
export async function mcpCommand(io: Io, flags: McpFlags): Promise<number> {
  try {
    if (flags.printConfig !== undefined) return printConfig(io, flags);
    const target = resolveTarget(flags, io.env);
    const agent = flags.agent ?? io.env.SVC_AGENT;
    // Decided before serving: no network answer changes it.
    if (!agent && !target.token?.startsWith(AGENT_TOKEN_PREFIX)) {
      io.err("svc mcp: say which agent to act as: pass --agent ID (or SVC_AGENT), or use the agent's own agt_v1_ token");
      return EXIT.usage;
    }
    if (io.isTTY) io.err('svc mcp: this speaks MCP on stdin/stdout for an MCP client; to register it with one: svc mcp --print-config claude|codex|cursor');
    // Loaded here: the SDK and the attachment client are needed only when serving.
    const [{ runMcp }, { StdioServerTransport }] = await Promise.all([import('../../mcp/run.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
    const handle = await runMcp({
      url: target.url,
      ...(target.token !== undefined ? { token: target.token } : {}),
      ...(agent ? { agent } : {}),
      ...(flags.stateDir ? { stateDir: flags.stateDir } : {}),
      startCommand: startCommandOf(target),
      transport: new StdioServerTransport(),
      log: (l) => io.err(l),
    });
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.stdin.once('end', stop);
      process.stdin.once('close', stop);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await handle.close();
    return EXIT.ok;
  } catch (err) {
    return reportFailure(io, 'mcp', err, flags.debug);
  }
}
