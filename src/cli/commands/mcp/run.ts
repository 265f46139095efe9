// svc mcp: an MCP server over stdio acting as one agent; or, with --print-config, the snippet that
// registers it with an MCP client. stdout carries the protocol, so every message goes to stderr.

import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_CLIENTS, registrationSnippet, type McpClientName } from '../connect/print-config.js';
import { AGENT_TOKEN_PREFIX } from '../../../auth/credentials.js';
import { ClientError } from '../../../client/errors.js';
import { EXIT, type Io } from '../../io.js';
import { resolveTarget, startCommandOf, UsageError } from '../../target.js';
import { checkOwnNetwork } from '../../target-check.js';
import { reportFailure, type ClientFlags } from '../../with-client.js';
import { pickAgentToken, scopeOf, type AgentPick } from '../../agent-token.js';
import { mcpUrlOf, remoteSnippet, tokenEnvVar, type HttpEntry } from '../connect/remote-config.js';
import { keepToken } from '../../../config/agent-credentials.js';
import { envValue } from '../../../config/env.js';

export interface McpFlags extends ClientFlags {
  agent?: string;
  stateDir?: string;
  printConfig?: string;
  name?: string;
  /** With printConfig: the HTTP form (connect/remote-config.ts). */
  remote?: boolean;
}

/** How the snippet starts svc: `svc` when that is this install on PATH, else node and the script this process runs. */
export function svcCommand(env: NodeJS.ProcessEnv): { command: string; args: string[] } {
  // The running script rather than a path beside this module: the install's bin/svc.js, or the
  // entry a test harness started from the sources, so the snippet starts what is running now.
  const bin = process.argv[1]
    ? path.resolve(process.argv[1])
    : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bin/svc.js');
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

/**
 * The command an MCP client runs to start `svc mcp` as an agent, and its environment. With a kept
 * token nothing secret is written: the command names the config (or URL) and the agent, and `svc
 * mcp` finds the kept token itself. A token given on the command line goes into the env block.
 */
export function mcpLaunch(
  pick: AgentPick,
  env: NodeJS.ProcessEnv,
  o: { agent?: string | undefined; stateDir?: string | undefined } = {},
): { command: string; args: string[]; env: Record<string, string> } {
  const t = pick.target;
  const svc = svcCommand(env);
  const agent = o.agent ?? pick.agentId;
  const urlGiven = t.urlSource === '--url' || t.urlSource === 'SVC_URL' || !t.configExists;
  const args = [
    ...svc.args,
    'mcp',
    ...(t.configExists ? ['--config', t.configFile] : []),
    ...(urlGiven ? ['--url', t.url] : []),
    ...(agent ? ['--agent', agent] : []),
    ...(o.stateDir ? ['--state-dir', path.resolve(o.stateDir)] : []),
  ];
  // The kept token and the config's operator token are found again by `svc mcp` from the config.
  const secret: Record<string, string> =
    t.token !== undefined && t.tokenSource !== 'kept' && t.tokenSource !== 'config' ? { SVC_TOKEN: t.token } : {};
  return { command: svc.command, args, env: secret };
}

async function printConfig(io: Io, flags: McpFlags): Promise<number> {
  const which = flags.printConfig as McpClientName;
  if (!MCP_CLIENTS.includes(which)) throw new UsageError(`--print-config: must be one of ${MCP_CLIENTS.join(', ')}`);
  const target = await checkOwnNetwork(resolveTarget(flags, io.env));
  const agent = flags.agent ?? envValue(io.env, 'SVC_AGENT');
  // A config that cannot work is refused here: the operator token is not an agent credential.
  const pick = await pickAgentToken(target, { agent, flag: '--agent', attach: true }, io.env, (l) => io.err(`svc mcp: ${l}`));
  if (flags.remote) return printRemote(io, which, flags.name ?? 'svc', pick, agent);
  const launch = mcpLaunch(pick, io.env, { agent, stateDir: flags.stateDir });
  const { snippet, where } = registrationSnippet(which, { name: flags.name ?? 'svc', ...launch });
  for (const line of snippet) io.out(line);
  for (const line of where) io.err(`svc mcp: ${line}`);
  if (launch.env.SVC_TOKEN !== undefined)
    io.err('svc mcp: the snippet holds the token: keep the file it goes into private (and out of version control)');
  else if (pick.kept) io.err(`svc mcp: no token in the snippet: svc mcp reads the token of ${pick.agentId} kept in ${pick.kept.file}`);
  else if (target.tokenSource === 'config')
    io.err('svc mcp: no token in the snippet: svc mcp uses the operator token of the config it names');
  else
    io.err(
      'svc mcp: no token given (--token / SVC_TOKEN): the first start claims the agent and keeps its token, where registration is open',
    );
  return EXIT.ok;
}

/** `--print-config CLIENT --remote`: the HTTP entry with the agent's token (kept, or given). */
function printRemote(io: Io, which: McpClientName, name: string, pick: AgentPick, agent: string | undefined): number {
  const t = pick.target;
  const agentToken = t.token?.startsWith(AGENT_TOKEN_PREFIX) === true;
  if (t.token === undefined || (!agentToken && t.tokenSource === 'config'))
    throw new UsageError(
      `--remote needs the agent's token: ${agent ? `none is kept for ${agent}; ` : ''}register it first (svc connect ${which} --agent ID --remote, or svc agents register --id ID), or pass its agt_v1_ token with --token`,
    );
  const actAs = pick.agentId ?? agent;
  // A static token acts as the agent through X-Svc-Agent (agent tokens name their own).
  if (!agentToken && actAs === undefined) throw new UsageError('--remote with a static token needs --agent ID');
  const entry: HttpEntry = { url: mcpUrlOf(t.url), token: t.token, ...(!agentToken && actAs ? { agent: actAs } : {}) };
  const envVar = tokenEnvVar(actAs ?? name);
  const { snippet, where } = remoteSnippet(which, name, entry, envVar);
  for (const line of snippet) io.out(line);
  for (const line of where) io.err(`svc mcp: ${line}`);
  if (which !== 'codex') io.err('svc mcp: the snippet holds the token: keep the file it goes into private (and out of version control)');
  return EXIT.ok;
}

/** Serves MCP on stdin/stdout until stdin closes or a signal arrives. */
export async function mcpCommand(io: Io, flags: McpFlags): Promise<number> {
  try {
    if (flags.printConfig !== undefined) return await printConfig(io, flags);
    const agent = flags.agent ?? envValue(io.env, 'SVC_AGENT');
    // The operator token goes only to this config's own network (as for every client command).
    let resolved = resolveTarget(flags, io.env);
    // Nothing answers yet (the MCP client often starts before the server): serve anyway, as after
    // a restart; tool calls say why they fail until the network answers, and it is asked then.
    const servingAnyway = (err: unknown): boolean => {
      if (!(err instanceof ClientError && err.status === undefined)) return false;
      io.err(`svc mcp: ${err.message}; serving anyway: tool calls fail with this until it answers, and it is tried every few seconds`);
      return true;
    };
    let unverified = false;
    try {
      resolved = await checkOwnNetwork(resolved);
    } catch (err) {
      if (!servingAnyway(err)) throw err;
      unverified = true;
    }
    const pickNow = () => pickAgentToken(resolved, { agent, flag: '--agent', attach: true }, io.env, (l) => io.err(`svc mcp: ${l}`));
    let pick: AgentPick;
    let pickLater = false;
    try {
      pick = await pickNow();
    } catch (err) {
      // An agent token given with --agent is checked by asking the server whose it is: asked then.
      if (!servingAnyway(err)) throw err;
      pick = { target: resolved };
      pickLater = true;
    }
    const target = pick.target;
    // Decided before serving: no network answer changes it.
    if (!agent && !target.token?.startsWith(AGENT_TOKEN_PREFIX)) {
      io.err("svc mcp: say which agent to act as: pass --agent ID (or SVC_AGENT), or use the agent's own agt_v1_ token");
      return EXIT.usage;
    }
    if (io.isTTY)
      io.err(
        'svc mcp: this speaks MCP on stdin/stdout for an MCP client; to register it with one: svc mcp --print-config claude|codex|cursor',
      );
    // Loaded here: the SDK and the attachment client are needed only when serving.
    const [{ runMcp }, { StdioServerTransport }, tools] = await Promise.all([
      import('../../../mcp/run.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../../../feature-commands.js').then((m) => m.featureTools()),
    ]);
    const handle = await runMcp({
      url: target.url,
      ...(target.token !== undefined ? { token: target.token } : {}),
      ...(agent ? { agent } : {}),
      ...(flags.stateDir ? { stateDir: flags.stateDir } : {}),
      startCommand: startCommandOf(target),
      // The config's operator token still goes only to a server that says it is this config's network,
      // and a token given still only acts as --agent when it is that agent's.
      ...(unverified && target.tokenSource === 'config' ? { verify: async () => void (await checkOwnNetwork(resolved)) } : {}),
      ...(pickLater ? { verify: async () => void (await pickNow()) } : {}),
      // A first claim's token is kept with the others (beside the config when there is one), under
      // the identity the network answered when it was claimed: the one asked before serving may
      // have had no uid (nothing answered then) or another (a memory store restarted since).
      keepToken: (network, agentId, token) => keepToken(scopeOf(target, network, io.env), agentId, token),
      transport: new StdioServerTransport(),
      log: (l) => io.err(l),
      tools,
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
