// Route checks of the spec (Authentication > Route checks) as data, and the one function that
// decides them. Routes ask `authorize`; visibility of individual rooms/DMs is visibility.ts.

import type { Scope } from '../protocol/types.js';
import type { Principal } from './principal.js';

export type Action =
  | 'metrics'
  | 'network.read'
  | 'topology.list' // GET /v1/rooms, /v1/agents
  | 'topology.get' // GET /v1/rooms/{id}, /v1/agents/{id}
  | 'history.read' // room and thread history and listings
  | 'dm.read'
  | 'artifacts.read'
  | 'events.stream'
  | 'pairings.read'
  | 'pairing.files' // GET /v1/pairing/files/{id}: a peer fetching a file of a message relayed to it
  | 'message.send'
  | 'message.change' // PATCH, DELETE /v1/messages/{id}: the sender (write, pair) or an operator (admin)
  | 'admin' // create room, members, delete room/agent, apply
  | 'agent.register'
  | 'attach'
  | 'console'
  | 'doc.llms'
  | 'doc.skill'
  | 'doc.install'
  | 'mcp' // POST /v1/mcp: the MCP tools act as one agent; each tool then checks its own route
  | 'a2a'; // /v1/a2a/agents/{id}/...: the A2A gateway, acting as the calling agent (docs/a2a.md)

interface Rule {
  scopes: readonly Scope[];
  /** When an anonymous caller is let through. */
  anonymous: 'never' | 'public_read' | 'open_registration';
  /** Self-registered agent tokens are refused even when they carry a listed scope. */
  refuseAgentTokens?: boolean;
}

export const RULES: Readonly<Record<Action, Rule>> = {
  metrics: { scopes: ['admin'], anonymous: 'never' },
  'network.read': { scopes: ['observe', 'admin', 'pair', 'attach'], anonymous: 'public_read' },
  'topology.list': { scopes: ['observe', 'admin', 'pair'], anonymous: 'public_read' },
  'topology.get': { scopes: ['observe', 'admin'], anonymous: 'public_read' },
  'history.read': { scopes: ['observe', 'admin'], anonymous: 'public_read' },
  'dm.read': { scopes: ['observe', 'admin'], anonymous: 'never' },
  'artifacts.read': { scopes: ['observe', 'admin'], anonymous: 'never' },
  'events.stream': { scopes: ['observe', 'admin'], anonymous: 'public_read' },
  'pairings.read': { scopes: ['observe', 'admin'], anonymous: 'never', refuseAgentTokens: true },
  // Only a pair credential: the handler serves just the files of messages relayed over its pairing.
  'pairing.files': { scopes: ['pair'], anonymous: 'never' },
  'message.send': { scopes: ['write', 'pair'], anonymous: 'never' },
  'message.change': { scopes: ['write', 'pair', 'admin'], anonymous: 'never' },
  admin: { scopes: ['admin'], anonymous: 'never' },
  'agent.register': { scopes: ['admin', 'attach'], anonymous: 'open_registration' },
  attach: { scopes: ['attach'], anonymous: 'open_registration' },
  console: { scopes: ['observe', 'admin'], anonymous: 'public_read' },
  'doc.llms': { scopes: ['observe', 'admin'], anonymous: 'public_read' },
  'doc.skill': { scopes: ['observe', 'write', 'admin', 'attach'], anonymous: 'public_read' },
  'doc.install': { scopes: ['observe', 'admin'], anonymous: 'public_read' },
  mcp: { scopes: ['attach', 'write', 'observe', 'admin'], anonymous: 'never' },
  // An agent token (write), a write token that may act as one agent, or an OAuth token granted `a2a`
  // (the scope only OAuth access tokens carry: src/oauth/access-tokens.ts; config tokens use `write`).
  a2a: { scopes: ['a2a', 'write'], anonymous: 'never' },
};

export interface PolicySettings {
  public_read: boolean;
  agent_registration: 'open' | 'token' | 'disabled';
}

export type Decision = { allow: true } | { allow: false; status: 401 | 403; reason: string };

const ALLOW: Decision = { allow: true };

/** Route x principal -> allow, or the status and reason of the refusal. */
export function authorize(p: Principal, action: Action, s: PolicySettings): Decision {
  const rule = RULES[action];
  if (p.kind === 'trusted') return ALLOW;
  if (p.kind === 'anonymous') {
    if (rule.anonymous === 'public_read' && s.public_read) return ALLOW;
    if (rule.anonymous === 'open_registration' && s.agent_registration === 'open') return ALLOW;
    return { allow: false, status: 401, reason: `this route needs a bearer token with one of the scopes: ${rule.scopes.join(', ')}` };
  }
  if (rule.refuseAgentTokens && p.kind === 'agent') {
    return { allow: false, status: 403, reason: 'self-registered agent tokens may not use this route' };
  }
  if (rule.scopes.some((sc) => p.scopes.has(sc))) return ALLOW;
  return { allow: false, status: 403, reason: `the token lacks a required scope (one of: ${rule.scopes.join(', ')})` };
}
