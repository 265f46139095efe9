// Merging one server entry into an MCP client's own config file: `mcpServers.NAME` of a JSON file
// (Claude Code's .mcp.json, Cursor's .cursor/mcp.json) or the `[mcp_servers.NAME]` table of Codex's
// config.toml. Other servers and settings are kept as they are. Pure: text in, text out.

import { WAIT_MAX_S } from '../../../mcp/limits.js';

/** The server entry: how the MCP client starts `svc mcp`. */
export interface ServerEntry {
  command: string;
  args: string[];
  /** Environment for the server process; empty when `svc mcp` finds its token itself. */
  env: Record<string, string>;
}

/** A file that cannot be merged safely (not JSON, or not an object where one is expected). */
export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The JSON entry of `mcpServers.NAME`. */
export function jsonEntry(e: ServerEntry): Record<string, unknown> {
  return { command: e.command, args: e.args, ...(Object.keys(e.env).length > 0 ? { env: e.env } : {}) };
}

/** `text` (a JSON file's content, undefined when absent) with `mcpServers[name]` set; whether an entry was replaced. */
export function mergeMcpJson(text: string | undefined, name: string, e: ServerEntry): { text: string; replaced: boolean } {
  return mergeMcpJsonValue(text, name, jsonEntry(e));
}

/** `mergeMcpJson` with the entry's JSON as given (the HTTP form of remote-config.ts). */
export function mergeMcpJsonValue(
  text: string | undefined,
  name: string,
  value: Record<string, unknown>,
): { text: string; replaced: boolean } {
  let doc: unknown = {};
  if (text !== undefined && text.trim() !== '') {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new ClientConfigError(`not valid JSON (${(err as Error).message}); fix or move it, then run this again`);
    }
  }
  if (!isObject(doc)) throw new ClientConfigError('not a JSON object; fix or move it, then run this again');
  const servers = doc.mcpServers ?? {};
  if (!isObject(servers)) throw new ClientConfigError('mcpServers is not an object; fix or move it, then run this again');
  const replaced = name in servers;
  const next = { ...doc, mcpServers: { ...servers, [name]: value } };
  return { text: `${JSON.stringify(next, null, 2)}\n`, replaced };
}

export const tomlString = (s: string) => JSON.stringify(s);
export const bareKey = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));

/** The `[mcp_servers.NAME]` table (and its env table) for Codex's config.toml. */
export function codexTable(name: string, e: ServerEntry): string[] {
  const key = `mcp_servers.${bareKey(name)}`;
  const lines = [
    `[${key}]`,
    `command = ${tomlString(e.command)}`,
    `args = [${e.args.map(tomlString).join(', ')}]`,
    // wait_for_messages may hold a call for up to WAIT_MAX_S seconds.
    `tool_timeout_sec = ${WAIT_MAX_S + 30}`,
  ];
  const env = Object.entries(e.env);
  if (env.length > 0) lines.push('', `[${key}.env]`, ...env.map(([k, v]) => `${bareKey(k)} = ${tomlString(v)}`));
  return lines;
}

// A table header line: [a.b] or [[a.b]], with optional spaces and a trailing comment.
const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;

/** The dotted key of a header, with quotes around parts removed (`mcp_servers."x"` -> mcp_servers.x). */
function headerKey(raw: string): string {
  return raw
    .split(/\.(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map((p) =>
      p
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .replace(/^'(.*)'$/, '$1'),
    )
    .join('.');
}

/**
 * `text` (config.toml, undefined when absent) with the `[mcp_servers.NAME]` table and its sub-tables
 * replaced by `table` (or added at the end); every other line is kept as it was.
 */
export function mergeCodexToml(text: string | undefined, name: string, table: string[]): { text: string; replaced: boolean } {
  const lines = text === undefined || text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const own = (key: string) => key === `mcp_servers.${name}` || key.startsWith(`mcp_servers.${name}.`);
  const kept: string[] = [];
  let skipping = false;
  let replaced = false;
  let insertAt = -1;
  for (const line of lines) {
    const m = HEADER.exec(line);
    if (m) {
      skipping = own(headerKey(m[1]!));
      if (skipping && !replaced) {
        replaced = true;
        insertAt = kept.length;
      }
    }
    if (!skipping) kept.push(line);
  }
  if (replaced) {
    // Blank lines that ended the old table stay before the next one.
    kept.splice(insertAt, 0, ...table, '');
  } else {
    while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept.pop();
    if (kept.length > 0) kept.push('');
    kept.push(...table);
  }
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept.pop();
  return { text: `${kept.join('\n')}\n`, replaced };
}
