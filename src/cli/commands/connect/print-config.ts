// `svc mcp --print-config claude|codex|cursor`: the snippet that registers this server with an MCP
// client, filled in with the URL, agent and token the command was given. Pure.

import { codexTable } from './client-config.js';

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

// Arrays of strings stay on one line: the entry reads like the command it runs.
const json = (v: unknown) =>
  JSON.stringify(v, null, 2).replace(
    /\[\n\s*((?:"[^"\n]*",?\n\s*)+)\]/g,
    (_m, items: string) =>
      `[${items
        .split(/,?\n\s*/)
        .filter(Boolean)
        .join(', ')}]`,
  );
const shellWord = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The `mcpServers` entry shared by Claude Code's `.mcp.json` and Cursor's `mcp.json`. */
function mcpServersJson(r: Registration): string {
  return json({ mcpServers: { [r.name]: { command: r.command, args: r.args, ...(Object.keys(r.env).length > 0 ? { env: r.env } : {}) } } });
}

/** What to print for one client: the snippet (stdout, so it can be redirected into the file) and where it goes (stderr). */
export function registrationSnippet(client: McpClientName, r: Registration): { snippet: string[]; where: string[] } {
  switch (client) {
    case 'claude': {
      const envFlags = Object.entries(r.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const add = ['claude', 'mcp', 'add', '--scope', 'project', ...envFlags, r.name, '--', r.command, ...r.args].map(shellWord).join(' ');
      return { snippet: [mcpServersJson(r)], where: ['Claude Code: put this in .mcp.json at the project root, or run:', `  ${add}`] };
    }
    case 'codex':
      return {
        snippet: codexTable(r.name, r),
        where: ['Codex: add this to ~/.codex/config.toml (or .codex/config.toml of a trusted project)'],
      };
    case 'cursor':
      return {
        snippet: [mcpServersJson(r)],
        where: ['Cursor: put this in .cursor/mcp.json of the project (or ~/.cursor/mcp.json for every project)'],
      };
  }
}
