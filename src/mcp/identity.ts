// Which agent `svc mcp` acts as: `--agent ID`, or the agent an `agt_v1_` token belongs to (the
// client library asks the attachment handshake, the one place the server says it).

import { AGENT_TOKEN_PREFIX } from '../auth/credentials.js';
import { agentOfToken } from '../client/attach-whoami.js';

export class IdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityError';
  }
}

/** `--agent`, else the token's own agent; a static token needs `--agent`. */
export async function resolveAgentId(o: {
  agent?: string | undefined;
  url: string;
  token?: string | undefined;
  networkId: string;
}): Promise<string> {
  if (o.agent !== undefined && o.agent !== '') return o.agent;
  if (o.token?.startsWith(AGENT_TOKEN_PREFIX)) return agentOfToken(o.url, o.token, o.networkId);
  throw new IdentityError("say which agent to act as: pass --agent ID (or SVC_AGENT), or use the agent's own agt_v1_ token");
}
