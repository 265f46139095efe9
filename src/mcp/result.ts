// The shape every tool answers with: compact text for the model, the same facts as structured content.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function result(lines: string[], structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured };
}
