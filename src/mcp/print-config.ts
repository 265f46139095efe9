// `svc mcp --print-config claude|codex|cursor`: the snippet that registers this server with an MCP
// client, filled in with the URL, agent and token the command was given. Pure.

import { WAIT_MAX_S } from './limits.js';

export const MCP_CLIENTS = ['claude', 'codex', 'cursor'] as const;
export type McpClientName = (typeof MCP_CLIENTS)[number];

export interface Registration {
  /** Name of the server entry in the client's config (default `svc`). */
  name: string;
  /** The command that runs svc (`svc`, or `node /path/bin/svc.js` split into command and args). */
  command: string;
  /** Arguments after the command: `mcp --url ... [--agent ...]`. */
  args: string[];
  /** Environment for the server process (the token, when one was given). */
  env: Record<string, string>;
}

const json = (v: unknown) => JSON.stringify(v, null, 2);
const tomlString = (s: string) => JSON.stringify(s);
const shellWord = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The `mcpServers` entry shared by Claude Code's `.mcp.json` and Cursor's `mcp.json`. */
function mcpServersJson(r: Registration): string {
  return json({ mcpServers: { [r.name]: { command: r.command, args: r.args, ...(Object.keys(r.env).length > 0 ? { env: r.env } : {}) } } });
}

/** The lines to print for one client. */
export function registrationSnippet(client: McpClientName, r: Registration): string[] {
  switch (client) {
    case 'claude': {
      const envFlags = Object.entries(r.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      return [
        '# Claude Code: run this once (or put the JSON below in .mcp.json at the project root)',
        ['claude', 'mcp', 'add', '--scope', 'project', ...envFlags, r.name, '--', r.command, ...r.args].map(shellWord).join(' '),
        '',
        mcpServersJson(r),
      ];
    }
    case 'codex': {
      const lines = [
        '# Codex: add to ~/.codex/config.toml (or .codex/config.toml of a trusted project)',
        `[mcp_servers.${r.name}]`,
        `command = ${tomlString(r.command)}`,
        `args = [${r.args.map(tomlString).join(', ')}]`,
        // wait_for_messages may hold a call for up to WAIT_MAX_S seconds.
        `tool_timeout_sec = ${WAIT_MAX_S + 30}`,
      ];
      const env = Object.entries(r.env);
      if (env.length > 0) lines.push('', `[mcp_servers.${r.name}.env]`, ...env.map(([k, v]) => `${k} = ${tomlString(v)}`));
      return lines;
    }
    case 'cursor':
      return ['// Cursor: .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)', mcpServersJson(r)];
  }
}
