// An MCP client over Streamable HTTP against `svc serve`'s /v1/mcp: the SDK's own Client and
// StreamableHTTPClientTransport, with the bearer token (and any other header) on every request;
// the 1.x SDK's (2025 handshake) and the 2.x SDK's (MCP 2026-07-28).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2026, StreamableHTTPClientTransport as HttpTransport2026 } from '@modelcontextprotocol/client';

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

/** Connects the 2.x SDK's client to `${url}/v1/mcp` pinned to MCP 2026-07-28 (server/discover, no initialize). */
export async function connectMcpHttp2026(url: string, token: string): Promise<Client2026> {
  const transport = new HttpTransport2026(new URL(`${url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client2026({ name: 'svc-test-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  return client;
}

/** Resolves with the URI of the next `notifications/resources/updated` `client` hears (a listen stream's). */
export function nextResourceUpdate(client: Client2026): Promise<string> {
  return new Promise((resolve) => {
    client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri));
  });
}
