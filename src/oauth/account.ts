// Who an OAuth grant acts as: one registration of an agent, not its id. The provider's account id
// is `<agent id>#<actor uid>`; an agent id never holds `#` (ID_PATTERN). An agent removed and
// registered again under the same id has a new actor uid, so every grant, code and token issued
// for the earlier one names an account that no longer exists: refused at the token endpoint
// (findAccount) and on /v1/mcp (access-tokens.ts). Pure but for the agent lookup it is given.

import type { AgentRecord } from '../store/records.js';

export type AccountAgent = Pick<AgentRecord, 'id' | 'actor_uid' | 'credential_key'>;

/** The account id of an agent's current registration. */
export const accountIdOf = (agent: Pick<AgentRecord, 'id' | 'actor_uid'>): string => `${agent.id}#${agent.actor_uid}`;

/** The agent id and actor uid an account id names; undefined for any other form (grants of older versions included). */
export function parseAccountId(accountId: string): { agentId: string; actorUid: string } | undefined {
  const i = accountId.indexOf('#');
  if (i <= 0 || i === accountId.length - 1) return undefined;
  return { agentId: accountId.slice(0, i), actorUid: accountId.slice(i + 1) };
}

/** The agent an account id stands for: the agent of that id, while it is still that registration. */
export async function agentOfAccount<A extends AccountAgent>(
  accountId: string,
  getAgent: (id: string) => Promise<A | undefined>,
): Promise<A | undefined> {
  const p = parseAccountId(accountId);
  if (!p) return undefined;
  const agent = await getAgent(p.agentId);
  return agent && agent.actor_uid === p.actorUid ? agent : undefined;
}
