// What a request to the gateway tells the SDK's handler about its caller, carried in the SDK's
// ServerCallContext (its `state` map): the credential that owns its tasks, the agent it is sent
// to, the svc principal and sender it acts as, and the base URL it reached (for file links).

import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { Principal } from '../../auth/principal.js';

export interface Caller {
  /** The credential key: the owner of the tasks it creates. */
  owner: string;
  /** The svc agent the request is sent to (the URL's). */
  agent: string;
  principal: Principal;
  /** The local agent the caller speaks as, when it may speak as exactly one (else why not). */
  sender: { id: string } | { refused: string };
  base: string;
}

const KEY = 'svc.caller';

/** Puts the caller into a context's state. */
export function withCaller(context: ServerCallContext, caller: Caller): ServerCallContext {
  context.state.set(KEY, caller);
  return context;
}

/** The caller a context carries; a context without one is a bug in the mount (transports.ts). */
export function callerOf(context: ServerCallContext | undefined): Caller {
  const c = context?.state.get(KEY) as Caller | undefined;
  if (!c) throw new Error('a2a: a request reached the task store without its caller');
  return c;
}

/**
 * The local agent a principal speaks as on the gateway: an agent token's (or OAuth grant's) agent;
 * a static token's, when its allowlist names exactly one agent. Anything else may read its tasks
 * but sends nothing.
 */
export function senderOf(p: Principal): Caller['sender'] {
  if (p.kind === 'agent') return { id: p.agentId };
  if (p.kind === 'static' && p.agents?.size === 1) return { id: [...p.agents][0]! };
  return {
    refused:
      'an A2A message is sent as an agent: use an agent token, an OAuth token of one, or a token whose agents list names exactly one agent',
  };
}

/** The credential key of a principal ('anonymous' without one: auth mode none). */
export function ownerOf(p: Principal): string {
  return p.kind === 'anonymous' ? 'anonymous' : p.credentialKey;
}
