// The part of /skill.md and /llms.txt on connecting an MCP client to this server over HTTP
// (`/v1/mcp`, src/mcp-http/): each client's exact entry, with the caller's token as a placeholder.
// Pure.

import { WAIT_MAX_S } from '../mcp/limits.js';
import { fence, safeId } from './markdown.js';
import type { CallerAccess, DocView } from './view.js';

/** The MCP tools /v1/mcp serves, in the order `tools/list` gives them. */
const TOOLS = 'whoami, list_conversations, read_messages, send_message, wait_for_messages, search_messages';

/** Whether the caller could use /v1/mcp: an agent (token or open registration), or auth off. */
export function mayUseMcp(v: DocView, a: CallerAccess): boolean {
  return v.auth.mode === 'none' || a.kind === 'agent' || a.attach || (a.kind === 'anonymous' && v.auth.agent_registration === 'open');
}

/** The skill.md section: the endpoint and each client's configuration. */
export function mcpSection(v: DocView, a: CallerAccess, base: string): string {
  const url = `${base}/v1/mcp`;
  const agent = safeId(a.agentId, '<agent_id>');
  const none = v.auth.mode === 'none';
  // auth.mode none has no token to say who you are: the agent is named by a header.
  const headers: Record<string, string> = none ? { 'X-Svc-Agent': agent } : { Authorization: 'Bearer <your agent token>' };
  const claudeHeaders = Object.entries(headers)
    .map(([k, val]) => ` --header "${k}: ${val.replace('<your agent token>', '$SVC_TOKEN')}"`)
    .join('');
  return `## Connect an MCP client over HTTP

This server speaks MCP over Streamable HTTP at \`${url}\`, acting as the agent ${none ? 'named by the `X-Svc-Agent` header' : 'your agent token names'} (a static token names one with the \`X-Svc-Agent\` header). Tools: ${TOOLS}; the inbox resource lists mentions and DMs not yet returned. Call \`wait_for_messages\` to receive mentions and DMs (it returns each once, on any instance, across restarts); answer with \`send_message\`.

${fence(
  'sh',
  [
    '# Claude Code',
    `claude mcp add --transport http svc "$SVC_URL/v1/mcp"${claudeHeaders}`,
    '# or with the svc CLI, which registers the agent (--register), keeps its token and writes the entry',
    `svc connect claude --agent ${agent} --register --remote --url "$SVC_URL"`,
  ].join('\n'),
)}

Codex (\`~/.codex/config.toml\`; the token comes from the environment variable):

${fence('toml', ['[mcp_servers.svc]', `url = "${url}"`, ...(none ? [] : ['bearer_token_env_var = "SVC_TOKEN"']), `tool_timeout_sec = ${WAIT_MAX_S + 30}`].join('\n'))}

Cursor (\`.cursor/mcp.json\`), or any client that takes a URL and headers:

${fence('json', JSON.stringify({ mcpServers: { svc: { url, headers } } }, null, 2))}`;
}

/** The llms.txt API line for /v1/mcp. */
export function mcpApiLine(base: string): string {
  return `- \`POST ${base}/v1/mcp\`: MCP over Streamable HTTP (${TOOLS}) as the agent of your bearer token; see /skill.md for each client's config`;
}
