// svc connect claude|codex|cursor: reuses the agent's kept token (or, with --register, registers it), writes the MCP
// client's own config so that it runs `svc mcp` as that agent, and proves it by starting that very
// entry and calling whoami. No token is written: the entry names the config (or URL) and the agent,
// and `svc mcp` reads the kept token itself.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AGENT_TOKEN_PREFIX } from '../../../auth/credentials.js';
import type { CredentialScope } from '../../../config/agent-credentials.js';
import { ClientConfigError, codexTable, jsonEntry, mergeCodexToml, mergeMcpJsonValue, type ServerEntry } from './client-config.js';
import { claudeAddArgs, codexHttpTable, httpHeaders, httpJsonEntry, mcpUrlOf, tokenEnvVar, type HttpEntry } from './remote-config.js';
import { MCP_CLIENTS, type McpClientName } from './print-config.js';
import { keepFix, pickAgentToken, scopeOf, type AgentPick } from '../../agent-token.js';
import { keepCredential, refuseUnknownAgent } from './agent.js';
import { EXIT, type Io } from '../../io.js';
import { TargetError, UsageError } from '../../target.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { mcpLaunch } from '../mcp/run.js';

export interface ConnectFlags extends ClientFlags {
  agent?: string;
  /** The server's name in the client's config (default svc). */
  name?: string;
  yes?: boolean;
  /** Only print what would be written. */
  print?: boolean;
  /** Write the HTTP form: the client connects to the server's /v1/mcp with the agent's token. */
  remote?: boolean;
  /** Register the agent when it is not (otherwise an unknown id is refused: a typo must not become an agent). */
  register?: boolean;
}

/** One change to make: a file to write, or a command to run. */
type Change =
  | { kind: 'file'; file: string; text: string; replaced: boolean; show: string[] }
  | { kind: 'run'; argv: string[]; before?: string[][]; show: string[] };

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** An executable named `name` on PATH, if any. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

const shellWord = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const readText = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

/** The change that puts `value` at mcpServers.`name` of the JSON config `file` (Claude Code's .mcp.json, Cursor's); the plan shows `shown`. */
function jsonFileChange(file: string, name: string, value: Record<string, unknown>, shown: Record<string, unknown>): Change {
  try {
    const { text, replaced } = mergeMcpJsonValue(readText(file), name, value);
    return { kind: 'file', file, text, replaced, show: [`${file}: mcpServers.${name} =`, ...JSON.stringify(shown, null, 2).split('\n')] };
  } catch (err) {
    if (err instanceof ClientConfigError) throw new TargetError(`${file}: ${err.message}`);
    throw err;
  }
}

/**
 * Claude Code's change: `claude mcp add ADD_ARGS` when `claude` is on PATH (the project's old entry
 * of that name removed first), else `json` on the project's .mcp.json. The plan shows `shownArgs`.
 */
function claudeChange(
  name: string,
  addArgs: readonly string[],
  shownArgs: readonly string[],
  json: (file: string) => Change,
  o: { cwd: string; env: NodeJS.ProcessEnv },
): Change {
  const claude = onPath('claude', o.env);
  const mcpJson = path.join(o.cwd, '.mcp.json');
  if (!claude) return json(mcpJson);
  const before = removeFirst(claude, mcpJson, name);
  return {
    kind: 'run',
    argv: [claude, ...addArgs],
    before,
    show: [...before, ['claude', ...shownArgs]].map((a) => `run: ${['claude', ...a.slice(1)].map(shellWord).join(' ')}`),
  };
}

/** Codex's change: `table` as server `name` in its config.toml (under CODEX_HOME, else ~/.codex). */
function codexChange(name: string, table: string[], env: NodeJS.ProcessEnv): Change {
  const file = path.join(env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex'), 'config.toml');
  const { text, replaced } = mergeCodexToml(readText(file), name, table);
  return { kind: 'file', file, text, replaced, show: [`${file}:`, ...table] };
}

/** The change that registers `entry` as server `name` with `which`, for the project in `cwd`. */
export function planChange(which: McpClientName, name: string, entry: ServerEntry, o: { cwd: string; env: NodeJS.ProcessEnv }): Change {
  const json = (file: string) => jsonFileChange(file, name, jsonEntry(entry), jsonEntry(entry));
  switch (which) {
    case 'claude': {
      const envFlags = Object.entries(entry.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const add = ['mcp', 'add', '--scope', 'project', ...envFlags, name, '--', entry.command, ...entry.args];
      return claudeChange(name, add, add, json, o);
    }
    case 'codex':
      return codexChange(name, codexTable(name, entry), o.env);
    case 'cursor':
      return json(path.join(o.cwd, '.cursor', 'mcp.json'));
  }
}

/**
 * Prints the plan (stdout with --print, which ends there) and, without --yes, asks before it is
 * carried out; an exit code when the command ends here.
 */
async function showPlan(io: Io, plan: string[], change: Change, flags: { print?: boolean; yes?: boolean }): Promise<number | undefined> {
  if (flags.print) {
    for (const l of plan) io.out(l);
    return EXIT.ok;
  }
  for (const l of plan) io.err(l);
  if (flags.yes) return undefined;
  if (!io.isTTY) throw new UsageError('not a TTY; pass --yes to write this (or --print to only show it)');
  if (await confirm(change.kind === 'file' ? `Write ${change.file}?` : 'Run it?')) return undefined;
  io.err('svc connect: nothing written');
  return EXIT.failure;
}

/** `claude mcp add` refuses a name that exists: the command that removes the project's old entry of that name first, if any. */
function removeFirst(claude: string, mcpJson: string, name: string): string[][] {
  try {
    const doc = JSON.parse(readText(mcpJson) ?? '{}') as { mcpServers?: Record<string, unknown> };
    if (doc.mcpServers && name in doc.mcpServers) return [[claude, 'mcp', 'remove', '--scope', 'project', name]];
  } catch {
    // claude itself says what is wrong with the file
  }
  return [];
}

/** The change that registers the HTTP form of `entry` as server `name` with `which` (`--remote`). */
export function planRemoteChange(
  which: McpClientName,
  name: string,
  entry: HttpEntry,
  o: { cwd: string; env: NodeJS.ProcessEnv; redact?: boolean; envVar?: string },
): Change {
  // The plan shown before the token exists (or before it is confirmed) does not show the token.
  const shown: HttpEntry = o.redact ? { ...entry, token: '<the token of the agent>' } : entry;
  const json = (client: 'claude' | 'cursor') => (file: string) =>
    jsonFileChange(file, name, httpJsonEntry(client, entry), httpJsonEntry(client, shown));
  switch (which) {
    case 'claude':
      return claudeChange(name, claudeAddArgs(name, entry), claudeAddArgs(name, shown), json('claude'), o);
    case 'codex':
      return codexChange(name, codexHttpTable(name, entry, o.envVar ?? tokenEnvVar(name)), o.env);
    case 'cursor':
      return json('cursor')(path.join(o.cwd, '.cursor', 'mcp.json'));
  }
}

interface RemoteContext {
  client: McpClientName;
  name: string;
  agent: string;
  networkId: string;
  pick: AgentPick;
  scope: CredentialScope;
  given: boolean;
  givenAgentToken: boolean;
}

/** `svc connect CLIENT --remote`: the HTTP entry with the agent's token, proven by whoami over HTTP. */
async function connectRemote(io: Io, flags: ConnectFlags, c: RemoteContext): Promise<number> {
  const cwd = process.cwd();
  const url = mcpUrlOf(c.pick.target.url);
  // A static token given acts as the agent through X-Svc-Agent; an agent token names its own.
  const staticGiven = c.given && !c.givenAgentToken;
  const entryWith = (token: string): HttpEntry => ({ url, token, ...(staticGiven ? { agent: c.agent } : {}) });
  const envVar = tokenEnvVar(c.agent);
  const preview = planRemoteChange(c.client, c.name, entryWith(c.pick.target.token ?? ''), { cwd, env: io.env, redact: true, envVar });
  const plan = [
    `svc connect: ${c.client} connects to ${url} as agent ${c.agent} of network ${c.networkId} (MCP over HTTP; nothing runs locally)`,
    ...preview.show.map((l) => `  ${l}`),
    preview.kind === 'file'
      ? preview.replaced
        ? `  (replaces the existing ${c.name} entry; other entries are kept)`
        : '  (other entries are kept)'
      : '',
    c.client === 'codex'
      ? `  the token is not written: Codex reads it from ${envVar} (export ${envVar}="$(svc agents token ${c.agent})")`
      : '  the entry holds the agent token: keep that file private and out of version control',
  ].filter((l) => l !== '');
  const stop = await showPlan(io, plan, preview, flags);
  if (stop !== undefined) return stop;
  const token = await keepCredential(io, c.pick, c.agent, c.scope, c.given, c.givenAgentToken);
  if (token === undefined) throw new TargetError(`no token of agent ${c.agent} to write; ${keepFix(c.agent)}`);
  const entry = entryWith(token);
  const change = planRemoteChange(c.client, c.name, entry, { cwd, env: io.env, envVar });
  apply(change, cwd, io.env);
  io.err(
    `svc connect: ${change.kind === 'file' ? `wrote ${change.file}` : `ran claude mcp add --transport http (${c.name})`}; checking it by calling whoami over HTTP`,
  );
  const { probeWhoamiHttp, ProbeError } = await import('./probe.js');
  try {
    const who = await probeWhoamiHttp(url, httpHeaders(entry));
    if (who.agentId !== c.agent) throw new ProbeError(`whoami answered agent ${who.agentId}, not ${c.agent}`, '');
  } catch (err) {
    if (err instanceof ProbeError) {
      io.err(`svc connect: written, but the check failed: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  if (c.client === 'codex') io.err(`svc connect: before starting Codex: export ${envVar}="$(svc agents token ${c.agent})"`);
  io.out(`connected ${c.client} as agent ${c.agent} of network ${c.networkId} over HTTP (${url}; whoami answered ${c.agent})`);
  return EXIT.ok;
}

function apply(change: Change, cwd: string, env: NodeJS.ProcessEnv): void {
  if (change.kind === 'file') {
    mkdirSync(path.dirname(change.file), { recursive: true });
    // The entry holds no token unless one was given on the command line; then the file is private.
    writeFileSync(change.file, change.text, { mode: 0o600 });
    return;
  }
  for (const argv of [...(change.before ?? []), change.argv]) {
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd, env, encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      const why = r.error?.message ?? (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n')[0];
      throw new TargetError(`${['claude', ...argv.slice(1, 4)].join(' ')} failed: ${why}`);
    }
  }
}

async function confirm(message: string): Promise<boolean> {
  return (await import('@inquirer/prompts')).confirm({ message, default: true });
}

/** `svc connect CLIENT`: see the file comment. */
export function connectCommand(io: Io, which: string, flags: ConnectFlags): Promise<number> {
  return withClient(
    io,
    'connect',
    flags,
    async (client, target0) => {
      if (!(MCP_CLIENTS as readonly string[]).includes(which)) throw new UsageError(`CLIENT: must be one of ${MCP_CLIENTS.join(', ')}`);
      const mcpClient = which as McpClientName;
      const name = flags.name ?? 'svc';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new UsageError('--name: letters, digits, _ and - only');
      let agent = flags.agent ?? mcpClient;
      if (!AGENT_ID.test(agent)) throw new UsageError(`--agent: ${JSON.stringify(agent)} is not an agent id (letters, digits, . _ -)`);
      // The config's operator token is not an agent credential: the agent's kept token, or a claim of it.
      const pick = await pickAgentToken(
        target0,
        {
          agent: flags.agent !== undefined || !target0.token?.startsWith(AGENT_TOKEN_PREFIX) ? agent : undefined,
          flag: '--agent',
          infer: true,
          checksRegistration: true,
        },
        io.env,
        (l) => io.err(`svc connect: ${l}`),
      );
      agent = pick.agentId ?? agent;
      const network = await client.network();
      const scope = pick.scope ?? scopeOf(target0, network, io.env);
      const given = pick.target.tokenSource === '--token' || pick.target.tokenSource === 'SVC_TOKEN';
      const givenAgentToken = given && pick.target.token?.startsWith(AGENT_TOKEN_PREFIX);
      // This command would claim the id (no token of it here): only an id the network has, or with
      // --register (`--print` writes nothing, so it only shows the plan).
      if (!pick.kept && !given && !flags.register && !flags.print) await refuseUnknownAgent(target0, agent, network.id, scope);
      if (flags.remote)
        return await connectRemote(io, flags, {
          client: mcpClient,
          name,
          agent,
          networkId: network.id,
          pick,
          scope,
          given,
          givenAgentToken: Boolean(givenAgentToken),
        });
      // An agent token given is kept like a registered one, so the entry carries no token either way.
      const launch = mcpLaunch(
        { ...pick, target: givenAgentToken || !given ? { ...pick.target, tokenSource: 'kept' } : pick.target },
        io.env,
        { agent },
      );
      const entry: ServerEntry = { command: launch.command, args: launch.args, env: launch.env };
      const cwd = process.cwd();
      const change = planChange(mcpClient, name, entry, { cwd, env: io.env });

      const plan = [
        `svc connect: ${mcpClient} runs svc mcp as agent ${agent} of network ${network.id} at ${pick.target.url}`,
        ...change.show.map((l) => `  ${l}`),
        change.kind === 'file' && change.replaced
          ? `  (replaces the existing ${name} entry; other entries are kept)`
          : change.kind === 'file'
            ? '  (other entries are kept)'
            : '',
        Object.keys(entry.env).length > 0
          ? '  the entry holds the token given: keep that file private and out of version control'
          : `  no token is written: svc mcp reads the token kept for ${agent}${pick.kept || givenAgentToken ? '' : ' (claimed and kept when this runs)'}`,
      ].filter((l) => l !== '');
      const stop = await showPlan(io, plan, change, flags);
      if (stop !== undefined) return stop;

      await keepCredential(io, pick, agent, scope, given, Boolean(givenAgentToken));

      apply(change, cwd, io.env);
      io.err(
        `svc connect: ${change.kind === 'file' ? `wrote ${change.file}` : `ran claude mcp add (${name})`}; checking it by starting that entry and calling whoami`,
      );
      const { probeWhoami, ProbeError } = await import('./probe.js');
      try {
        const who = await probeWhoami(entry, { cwd, baseEnv: io.env });
        if (who.agentId !== agent) throw new ProbeError(`whoami answered agent ${who.agentId}, not ${agent}`, '');
        if (who.held !== undefined) {
          // Not a broken entry: the token and the agent were accepted, and one runtime per agent is the rule.
          // The server names the holder (its User-Agent, address, since when); an older one does not.
          const holder = /, held by (.+); close it first$/.exec(who.held)?.[1];
          io.err(
            `svc connect: ${agent} is attached already by another runtime with this same token, ${holder ? `held by ${holder}` : `(${who.held}): an \`svc agent run --agent ${agent}\` or another \`svc mcp --agent ${agent}\``}; ${mcpClient} gets ${agent}'s messages once that one stops`,
          );
          io.out(
            `connected ${mcpClient} as agent ${agent} of network ${network.id} (server ${name}; whoami answered ${agent}; its live attachment is held by another runtime for now)`,
          );
          return EXIT.ok;
        }
      } catch (err) {
        if (err instanceof ProbeError) {
          io.err(`svc connect: written, but the check failed: ${err.message}`);
          return EXIT.failure;
        }
        throw err;
      }
      io.out(`connected ${mcpClient} as agent ${agent} of network ${network.id} (server ${name}; whoami answered ${agent})`);
      return EXIT.ok;
    },
    { operatorToken: true },
  );
}
