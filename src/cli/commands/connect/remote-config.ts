// The HTTP form of an MCP client's server entry (`--remote`): the client talks to the server's
// /v1/mcp by URL with the agent's token, and runs nothing locally. Claude Code and Cursor take the
// token in a header of the entry; Codex reads it from an environment variable
// (`bearer_token_env_var`), so its config file holds no secret. Pure: values in, text out.

import { bareKey, tomlString } from './client-config.js';
import { WAIT_MAX_S } from '../../../mcp/limits.js';
import type { McpClientName } from './print-config.js';

/** Where a remote client connects and with what. */
export interface HttpEntry {
  /** The server's MCP endpoint, `<base>/v1/mcp`. */
  url: string;
  /** The bearer token: the agent's own agt_v1_ token, or a static token with `agent`. */
  token: string;
  /** Sent as X-Svc-Agent: the agent a static token acts as (agent tokens name their own). */
  agent?: string;
}

/** The MCP endpoint of a server base URL. */
export const mcpUrlOf = (base: string): string => `${base.replace(/\/+$/, '')}/v1/mcp`;

/** The environment variable Codex reads the token of `agent` from. */
export const tokenEnvVar = (agent: string): string => `SVC_TOKEN_${agent.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** The headers every request of the client carries. */
export function httpHeaders(e: HttpEntry): Record<string, string> {
  return { Authorization: `Bearer ${e.token}`, ...(e.agent ? { 'X-Svc-Agent': e.agent } : {}) };
}

/** The `mcpServers.NAME` value: Claude Code's `.mcp.json` (`type: http`) or Cursor's `mcp.json`. */
export function httpJsonEntry(client: 'claude' | 'cursor', e: HttpEntry): Record<string, unknown> {
  return { ...(client === 'claude' ? { type: 'http' } : {}), url: e.url, headers: httpHeaders(e) };
}

/** The `[mcp_servers.NAME]` table of Codex's config.toml: the URL, and the token from `envVar`. */
export function codexHttpTable(name: string, e: HttpEntry, envVar: string): string[] {
  return [
    `[mcp_servers.${bareKey(name)}]`,
    `url = ${tomlString(e.url)}`,
    `bearer_token_env_var = ${tomlString(envVar)}`,
    ...(e.agent ? [`http_headers = { "X-Svc-Agent" = ${tomlString(e.agent)} }`] : []),
    // wait_for_messages may hold a call for up to WAIT_MAX_S seconds.
    `tool_timeout_sec = ${WAIT_MAX_S + 30}`,
  ];
}

/** The `claude mcp add` command line of the HTTP form (project scope, as the stdio form). */
export function claudeAddArgs(name: string, e: HttpEntry): string[] {
  const headers = Object.entries(httpHeaders(e)).flatMap(([k, v]) => ['--header', `${k}: ${v}`]);
  return ['mcp', 'add', '--transport', 'http', '--scope', 'project', name, e.url, ...headers];
}

const shellWord = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** What `svc mcp --print-config CLIENT --remote` prints: the snippet (stdout) and where it goes (stderr). */
export function remoteSnippet(client: McpClientName, name: string, e: HttpEntry, envVar: string): { snippet: string[]; where: string[] } {
  switch (client) {
    case 'claude':
      return {
        snippet: [JSON.stringify({ mcpServers: { [name]: httpJsonEntry('claude', e) } }, null, 2)],
        where: [
          'Claude Code: put this in .mcp.json at the project root, or run:',
          `  claude ${claudeAddArgs(name, e).map(shellWord).join(' ')}`,
        ],
      };
    case 'codex':
      return {
        snippet: codexHttpTable(name, e, envVar),
        where: [
          'Codex: add this to ~/.codex/config.toml (or .codex/config.toml of a trusted project),',
          `and set ${envVar} to the token in the environment Codex starts in (export ${envVar}=agt_v1_...)`,
        ],
      };
    case 'cursor':
      return {
        snippet: [JSON.stringify({ mcpServers: { [name]: httpJsonEntry('cursor', e) } }, null, 2)],
        where: ['Cursor: put this in .cursor/mcp.json of the project (or ~/.cursor/mcp.json for every project)'],
      };
  }
}
