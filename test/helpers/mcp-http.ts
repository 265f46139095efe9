// An MCP client over Streamable HTTP against `svc serve`'s /v1/mcp: the SDK's own Client and
// StreamableHTTPClientTransport, with the bearer token (and any other header) on every request.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpHttpSession {
  client: Client;
  /** Calls a tool; returns its result with the text joined. */
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<CallToolResult & { text: string }>;
  close(): Promise<void>;
}

/** Connects (initialize included) to `${url}/v1/mcp` with `token`. */
export async function connectMcpHttp(url: string, token: string, headers: Record<string, string> = {}): Promise<McpHttpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  });
  const client = new Client({ name: 'svc-test-http', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, a = {}, timeoutMs = 30_000) {
      const r = (await client.callTool({ name, arguments: a }, undefined, { timeout: timeoutMs })) as CallToolResult;
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { ...r, text };
    },
    close: () => client.close(),
  };
}
