// What the default features (src/features.ts) add to the command line: commands of `svc`
// (src/feature-cli.ts) and MCP tools of `svc mcp` (src/mcp/tool-host.ts's ToolSet). Apart from
// features.ts, which loads the servers' parts: a command loads only its own declaration here.

import type { FeatureCommand } from './feature-cli.js';
import type { ToolSet } from './mcp/tool-host.js';
import { reactCommand } from './reactions/command.js';
import { webhooksCommand } from './webhooks/command.js';

/** The commands features add to `svc` (src/cli/program.ts places each as it says). */
export const featureCommands: readonly FeatureCommand[] = [reactCommand, webhooksCommand];

/** The MCP tools features add to `svc mcp`, loaded with its server (/v1/mcp adds the same: src/mcp-http/api.ts). */
export async function featureTools(): Promise<readonly ToolSet[]> {
  return [(await import('./reactions/mcp-tool.js')).reactTool];
}
