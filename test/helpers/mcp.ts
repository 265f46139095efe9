// Spawns `svc mcp` as an MCP client would: the SDK's Client over a StdioClientTransport running
// `node SVC_BIN mcp ...` (svc from the sources), with stderr collected so tests can wait for the attachment.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { cleanEnv } from './cli.js';
import { SVC_BIN } from './server.js';

export interface McpSession {
  client: Client;
  transport: StdioClientTransport;
  /** What `svc mcp` wrote to stderr so far. */
  stderr(): string;
  /** Resolves when stderr matches (e.g. the attachment is ready); rejects after `ms`. */
  waitFor(re: RegExp, ms?: number): Promise<void>;
  /** Calls a tool; returns its result with the text joined. */
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<CallToolResult & { text: string }>;
  close(): Promise<void>;
}

/** `capabilities`: what the client declares in `initialize` (none by default). */
export async function startMcp(
  args: string[],
  env: Record<string, string | undefined> = {},
  capabilities: ClientCapabilities = {},
): Promise<McpSession> {
  const e = cleanEnv(env);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SVC_BIN, 'mcp', ...args],
    env: Object.fromEntries(Object.entries(e).filter((kv): kv is [string, string] => kv[1] !== undefined)),
    stderr: 'pipe',
  });
  let err = '';
  const watchers = new Set<() => void>();
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    for (const w of watchers) w();
  });
  const client = new Client({ name: 'svc-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => err,
    waitFor: (re, ms = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!re.test(err)) return;
          clearTimeout(timer);
          watchers.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`svc mcp stderr never matched ${re} in ${ms} ms:\n${err}`));
        }, ms);
        watchers.add(check);
        check();
      }),
    async call(name, a = {}, timeoutMs = 30_000) {
      const r = (await client.callTool({ name, arguments: a }, undefined, { timeout: timeoutMs })) as CallToolResult;
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { ...r, text };
    },
    close: () => client.close(),
  };
}
