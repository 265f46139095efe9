// The /v1/mcp route (serve.ts answers it). The MCP SDK and the tools load with the first request:
// they cost every server start about 150 ms of CPU otherwise, and most servers never get one.

import type { Route } from '../http/router.js';
import type { McpShared } from './serve.js';

export type { McpShared };

/** The path of the MCP endpoint. */
export const MCP_PATH = '/v1/mcp';

/** The MCP route; `shared` bounds concurrent waits per agent and finds calls to cancel on this instance. */
export function mcpRoutes(shared: McpShared): Route[] {
  return [
    {
      method: 'POST',
      path: MCP_PATH,
      action: 'mcp',
      raw: true,
      handler: async ({ ctx, principal, req, res }) => (await import('./serve.js')).serve(ctx, principal, req, res, shared),
    },
  ];
}
