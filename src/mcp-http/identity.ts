// Which agent a /v1/mcp request acts as, from the principal the admission gate resolved (the
// bearer token goes through the one auth path, src/auth/). An agent token acts as its own agent.
// A static token names the agent with the X-Svc-Agent header when it may assert it (the rule of
// `svc mcp --agent`), or acts as the one agent its `agents` allowlist names; otherwise it is
// refused with the way out, since an operator's token is no agent.

import { mayAssertAgent, type Principal } from '../auth/principal.js';
import { ID_PATTERN } from '../protocol/ids.js';

/** The request header naming the agent for a static token. */
export const AGENT_HEADER = 'x-svc-agent';

export type McpIdentity = { ok: true; agentId: string } | { ok: false; reason: string };

const HOW =
  "use the agent's own agt_v1_ token (svc connect ... --remote writes it), or a static token with an agents list of one agent, or name the agent with the X-Svc-Agent header";

/** The agent a request acts as, or why none. */
export function mcpAgentOf(p: Principal, asked: string | undefined): McpIdentity {
  const named = asked?.trim() || undefined;
  if (named !== undefined && !ID_PATTERN.test(named))
    return { ok: false, reason: `X-Svc-Agent: ${JSON.stringify(named.slice(0, 80))} is not an agent id (letters, digits, . _ -)` };
  if (p.kind === 'agent') {
    if (named !== undefined && named !== p.agentId)
      return { ok: false, reason: `this agent token belongs to ${p.agentId}; it cannot act as ${named}` };
    return { ok: true, agentId: p.agentId };
  }
  if (p.kind === 'anonymous') return { ok: false, reason: `/v1/mcp needs a bearer token: ${HOW}` };
  if (named !== undefined) {
    if (!mayAssertAgent(p, named)) return { ok: false, reason: `this token may not act as agent ${named} (not in its agents list)` };
    return { ok: true, agentId: named };
  }
  if (p.kind === 'static' && p.agents?.size === 1) return { ok: true, agentId: [...p.agents][0]! };
  return { ok: false, reason: `/v1/mcp acts as one agent and this token names none: ${HOW}` };
}
