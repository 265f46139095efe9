// Which agent `svc mcp` acts as: `--agent ID`, or the agent an `agt_v1_` token belongs to.
// The HTTP API has no "who am I" route; the attachment handshake is the one place the server says
// which agent a token owns: IDENTIFY under another id is refused, before READY and without any
// registration, with "this agent token belongs to agent <id>".

import { AGENT_TOKEN_PREFIX } from '../auth/credentials.js';
import { attach, AttachError } from '../client/attach.js';

/** An id no agent token is refused for when it is its own: then READY names it directly. */
const PROBE_ID = 'svc-mcp-whoami';

export class IdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityError';
  }
}

/** The agent a generated agent token belongs to. */
export async function agentOfToken(url: string, token: string): Promise<string> {
  const a = attach({ url, token, agent: { id: PROBE_ID }, cursorStore: false, onEvent: () => undefined });
  try {
    const ready = await a.ready;
    return ready.agent_id;
  } catch (err) {
    const m = err instanceof AttachError ? /belongs to agent ([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(err.message) : null;
    if (m) return m[1]!;
    throw err instanceof Error ? err : new Error(String(err));
  } finally {
    await a.close().catch(() => undefined);
  }
}

/** `--agent`, else the token's own agent; a static token needs `--agent`. */
export async function resolveAgentId(o: { agent?: string | undefined; url: string; token?: string | undefined }): Promise<string> {
  if (o.agent !== undefined && o.agent !== '') return o.agent;
  if (o.token?.startsWith(AGENT_TOKEN_PREFIX)) return agentOfToken(o.url, o.token);
  throw new IdentityError('say which agent to act as: pass --agent ID (or SVC_AGENT), or use the agent\'s own agt_v1_ token');
}
