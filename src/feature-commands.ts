// What the default features (src/features.ts) add to the command line: commands of `svc`
// (src/feature-cli.ts), sections of the file `svc apply` carries, and MCP tools of `svc mcp`
// (src/mcp/tool-host.ts's ToolSet). Apart from features.ts, which loads the servers' parts: a
// command loads only its own declaration here.

import { a2aAgentsApplySection } from './a2a/outbound/apply-section.js';
import type { ApplySection, FeatureCommand } from './feature-cli.js';
import type { ToolSet } from './mcp/tool-host.js';
import { reactCommand } from './reactions/command.js';
import { hooksApplySection } from './webhooks/apply-section.js';
import { webhooksCommand } from './webhooks/command.js';

/** The commands features add to `svc` (src/cli/program.ts places each as it says). */
export const featureCommands: readonly FeatureCommand[] = [reactCommand, webhooksCommand];

/** The sections of `svc apply`'s file features keep beyond rooms and token bindings, in the order they are planned. */
export const featureApplySections: readonly ApplySection[] = [hooksApplySection, a2aAgentsApplySection];

/** The MCP tools features add to `svc mcp`, loaded with its server (/v1/mcp adds the same: src/mcp-http/api.ts). */
export async function featureTools(): Promise<readonly ToolSet[]> {
  return [(await import('./reactions/mcp-tool.js')).reactTool];
}
