// Which agents a signed-in person may let an OAuth client act as. An OAuth token acts with an
// agent token's scopes (write, attach, observe), so the person must be able to act as that agent
// already: an operator (auth mode none, or a token with `admin`) may pick any agent; anyone else
// the agents their credential owns (registered with it, or the agent of an agent token) and those
// their token's `agents` list names, and only with a token that can write or attach. Pure.

import type { Principal } from '../auth/principal.js';
import type { AgentRecord } from '../store/records.js';

/** Whether `p` may let a client act as `agent`. */
export function mayGrantAgent(p: Principal, agent: Pick<AgentRecord, 'id' | 'credential_key'>): boolean {
  if (p.kind === 'trusted') return true;
  if (p.kind === 'anonymous') return false;
  if (p.kind === 'agent') return p.agentId === agent.id;
  if (p.scopes.has('admin')) return true;
  if (!p.scopes.has('write') && !p.scopes.has('attach')) return false;
  return agent.credential_key === p.credentialKey || (p.agents?.has(agent.id) ?? false);
}

/** The agents `p` may pick, sorted by id. */
export function grantableAgents<A extends Pick<AgentRecord, 'id' | 'credential_key'>>(p: Principal, agents: readonly A[]): A[] {
  return agents.filter((a) => mayGrantAgent(p, a)).sort((a, b) => a.id.localeCompare(b.id));
}
