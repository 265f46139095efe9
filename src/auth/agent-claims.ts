// Who may claim an agent id: pure decisions over the caller, the registration mode and the stored
// claim. Claims themselves are store intents (agent.claim), which settle races between callers.

import type { Config } from '../config/types.js';
import type { Principal } from './principal.js';

export type ClaimRefusal = { status: 403 | 409; reason: string; code?: 'agent_reserved' };

/** A new claim on an unused id; undefined when allowed. */
export function newClaimRefusal(p: Principal, id: string, mode: Config['auth']['agent_registration']): ClaimRefusal | undefined {
  const forbid = (reason: string): ClaimRefusal => ({ status: 403, reason });
  switch (p.kind) {
    case 'trusted':
      return undefined;
    case 'agent':
      return forbid('an agent token acts only as its own agent');
    case 'anonymous':
      return mode === 'open' ? undefined : forbid('anonymous agent registration is not open on this network');
    case 'static':
      if (p.agents && !p.agents.has(id)) return forbid(`this token may not assert agent ${id} (not in its agents allowlist)`);
      if (p.scopes.has('admin') || p.agents?.has(id)) return undefined;
      if (mode === 'disabled') return forbid('agent registration is disabled (auth.agent_registration); ask an operator');
      return p.scopes.has('attach') ? undefined : forbid('registering agents needs the attach or admin scope');
  }
}

/**
 * Whether a new claim by `p` must keep off reserved ids (ids svc.yaml or an operator named: room
 * members, inbound hook senders; a token's agents list binds its ids outright). Only a
 * self-registration is: an anonymous claim under open registration, whose credential nobody
 * issued. Static tokens are the operator's own credentials (an allowlist already limits which ids
 * one may claim), mode none trusts everyone, and agent tokens never claim a new id.
 */
export const keepsOffReserved = (p: Principal): boolean => p.kind === 'anonymous';

/** The refusal of a self-registration of reserved `id`; `namedAs` says where it is named (nothing private). */
export function reservedClaimRefusal(id: string, namedAs: string): ClaimRefusal {
  return {
    status: 409,
    code: 'agent_reserved',
    reason:
      `agent id ${id} is reserved (${namedAs}) and only a credential the operator issued may register it: ` +
      `an operator registers it with an admin token, or gives its agent a token whose agents list names ${id}`,
  };
}

/** Resolving an id registered to `heldBy`: the same credential resolves it, others are refused. */
export function existingClaimRefusal(p: Principal, id: string, heldBy: string): ClaimRefusal | undefined {
  if (p.kind === 'agent' && p.agentId !== id) return { status: 403, reason: 'an agent token acts only as its own agent' };
  if (p.kind === 'static' && p.agents && !p.agents.has(id))
    return { status: 403, reason: `this token may not assert agent ${id} (not in its agents allowlist)` };
  if (p.kind === 'anonymous' || heldBy !== p.credentialKey)
    return { status: 409, reason: `agent id ${id} is already registered to another credential` };
  return undefined;
}
