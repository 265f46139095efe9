// The agent `svc connect` acts as: an id the network has (a typo is refused with the closest one;
// registering is explicit, with --register), and its credential made to last before anything is
// written.

import { ClientError } from '../../../client/errors.js';
import { keepToken, type CredentialScope } from '../../../config/agent-credentials.js';
import { didYouMean, isRegistered, keepFix, type AgentPick } from '../../agent-token.js';
import type { Io } from '../../io.js';
import { TargetError, UsageError, type Target } from '../../target.js';

/** Refuses an agent id the network does not have (connect would otherwise claim it unasked). */
export async function refuseUnknownAgent(target: Target, agent: string, networkId: string, scope: CredentialScope): Promise<void> {
  if ((await isRegistered(target, agent)) !== false) return;
  throw new UsageError(
    `--agent ${agent}: no agent ${agent} is registered on network ${networkId}${await didYouMean(target, agent, scope)}; register it first (svc agents register --id ${agent}), or pass --register to register it here`,
  );
}

/**
 * The agent's credential, made to last before anything is written: kept already, given now (an
 * agent token is kept), or claimed now (and kept). Returns the token now in use for the agent.
 */
export async function keepCredential(
  io: Io,
  pick: AgentPick,
  agent: string,
  scope: CredentialScope,
  given: boolean,
  givenAgentToken: boolean,
): Promise<string | undefined> {
  if (givenAgentToken) {
    io.err(`svc connect: the token of ${agent} is kept in ${keepToken(scope, agent, pick.target.token!)}`);
    return pick.target.token;
  }
  if (!pick.kept && !given) {
    try {
      const { SvcClient } = await import('../../../client/svc-client.js');
      const anon = new SvcClient({ url: pick.target.url });
      try {
        const reg = await anon.registerAgent({ requested_agent_id: agent });
        if (!reg.agent_token) throw new TargetError(`agent ${agent} was registered, but no token came back to keep; ${keepFix(agent)}`);
        io.err(`svc connect: registered agent ${agent}; its token is kept in ${keepToken(scope, agent, reg.agent_token)}`);
        return reg.agent_token;
      } finally {
        await anon.close().catch(() => undefined);
      }
    } catch (err) {
      if (err instanceof ClientError && (err.status === 409 || err.status === 403)) {
        throw new TargetError(
          `agent ${agent} cannot be claimed here (${err.message.split(';')[0]}), and no token of it is kept: pick another --agent, or bring its token: SVC_TOKEN=agt_v1_... svc agents register --id ${agent}`,
        );
      }
      throw err;
    }
  }
  if (pick.kept) io.err(`svc connect: using the token of ${agent} kept in ${pick.kept.file}`);
  return pick.target.token;
}
