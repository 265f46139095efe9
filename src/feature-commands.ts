// What the default features (src/features.ts) add to the command line: the MCP tools of `svc mcp`
// (src/mcp/tool-host.ts's ToolSet). Apart from features.ts, which loads the servers' parts.

import type { ToolSet } from './mcp/tool-host.js';

/** The MCP tools features add to `svc mcp`, loaded with its server (/v1/mcp adds the same: src/mcp-http/api.ts). */
export async function featureTools(): Promise<readonly ToolSet[]> {
  return [(await import('./reactions/mcp-tool.js')).reactTool];
}
