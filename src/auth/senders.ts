// Who may send as whom: pure decisions over the caller and what the store says about the claimed
// sender. Each returns the refusal (always 403) or undefined. network/messages.ts asks them.

import { mayAssertAgent, type Principal } from './principal.js';

/** A local message: origin is relayed by pairings only; a pair-scoped token sends remote senders only. */
export function localSenderRefusal(p: Principal, hasOrigin: boolean): string | undefined {
  if (hasOrigin && p.kind !== 'trusted') return 'origin is only accepted on messages relayed from a paired network';
  if (p.kind === 'static' && !p.scopes.has('write')) return 'pair credentials relay remote-origin messages only; this sender is local';
  return undefined;
}

/**
 * Sending as local agent `id`. `registeredTo` is the credential key the agent is registered to,
 * when it is registered: only that credential (or a trusted caller) may speak as it.
 */
export function agentSenderRefusal(p: Principal, id: string, registeredTo: string | undefined): string | undefined {
  if (!mayAssertAgent(p, id)) return `this credential may not send as agent ${id}`;
  if (registeredTo !== undefined && p.kind !== 'trusted' && registeredTo !== (p.kind === 'anonymous' ? '' : p.credentialKey)) {
    return `agent ${id} is registered to another credential; send with its own token`;
  }
  return undefined;
}

/** Sending as a person `id`: never with an agent's credential, never under a registered agent's id. */
export function humanSenderRefusal(p: Principal, id: string, idIsRegisteredAgent: boolean): string | undefined {
  if (p.kind === 'agent') return 'an agent token sends only as its own agent';
  if (p.kind === 'static' && p.agents) return 'a token with an agents allowlist cannot send human messages';
  // A person must not borrow a registered agent's identity (DM participation, mentions, wakes).
  if (idIsRegisteredAgent) return `${id} is a registered agent id; a person sends under another id`;
  return undefined;
}

/** Whether the console may offer this caller the human composer. */
export function canSendHuman(humanIngress: boolean, p: Principal): boolean {
  if (!humanIngress) return false;
  if (p.kind === 'trusted') return true;
  return p.kind === 'static' && p.scopes.has('write') && !p.agents;
}
