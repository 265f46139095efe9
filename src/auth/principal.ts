// Who is calling. `authenticate` turns a request's credential into a Principal or a 401 reason;
// nothing else reads Authorization headers.

import type { IncomingMessage } from 'node:http';
import type { Scope } from '../protocol/types.js';
import type { AuthMode, TokenConfig } from '../config/types.js';
import { AGENT_TOKEN_PREFIX, agentCredentialKey, staticCredentialKey, type StaticTokens } from './credentials.js';

export type Principal =
  /** auth.mode none: no authorization checks at all. */
  | { kind: 'trusted'; credentialKey: 'anonymous' }
  | { kind: 'anonymous' }
  | {
      kind: 'static';
      tokenId: string;
      scopes: ReadonlySet<Scope>;
      /** Allowlist of local agent ids the token may assert; undefined = unrestricted. */
      agents?: ReadonlySet<string>;
      credentialKey: string;
    }
  | { kind: 'agent'; agentId: string; scopes: ReadonlySet<Scope>; credentialKey: string };

export const AGENT_TOKEN_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['write', 'attach', 'observe']);

export interface Authenticator {
  mode: AuthMode;
  tokens: StaticTokens;
  /** Finds the agent owning a generated-token credential key (a store read). */
  agentByCredential(key: string): Promise<string | undefined>;
  /** Judges bearer tokens that are none of svc's own (OAuth access tokens), each for some routes only. */
  resolvers?: readonly TokenResolver[];
}

/**
 * A feature's judge of foreign bearer tokens. Its principals hold only on the routes whose action
 * it lists: on any other route its tokens are simply not valid (401), so no route special-cases them.
 */
export interface TokenResolver {
  /** The route actions (src/auth/policy.ts) its tokens may be used for. */
  actions: ReadonlySet<string>;
  /** The principal of `token`, or undefined when it is not one of its valid tokens. */
  resolve(token: string, req: IncomingMessage): Promise<Principal | undefined>;
}

/** Where a credential is presented: the route's action and the request (for resolvers). */
export interface AuthSite {
  action?: string;
  req?: IncomingMessage;
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: string };

/** Parses `Authorization: Bearer <token>`; a present header of another form is invalid. */
export function bearerOf(header: string | undefined): { present: boolean; token?: string } {
  if (header === undefined) return { present: false };
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? { present: true, token: m[1]! } : { present: true };
}

/** Resolves a bearer token (from the header or a console session) to a principal. */
export async function authenticate(
  auth: Authenticator,
  credential: { present: boolean; token?: string },
  site: AuthSite = {},
): Promise<AuthResult> {
  if (auth.mode === 'none') return { ok: true, principal: { kind: 'trusted', credentialKey: 'anonymous' } };
  if (!credential.present) return { ok: true, principal: { kind: 'anonymous' } };
  const token = credential.token;
  if (!token) return { ok: false, reason: 'the Authorization header must be "Bearer <token>"' };
  return principalForToken(auth, token, site);
}

/** Resolves a token: an agent token, a static token, then the resolvers that serve this site's action. */
export async function principalForToken(auth: Authenticator, token: string, site: AuthSite = {}): Promise<AuthResult> {
  if (token.startsWith(AGENT_TOKEN_PREFIX)) {
    const key = agentCredentialKey(token);
    const agentId = await auth.agentByCredential(key);
    if (agentId === undefined) return { ok: false, reason: 'the agent token is not valid (unknown or its agent was removed)' };
    return { ok: true, principal: { kind: 'agent', agentId, scopes: AGENT_TOKEN_SCOPES, credentialKey: key } };
  }
  const t = auth.tokens.find(token);
  if (t) return { ok: true, principal: { ...staticPrincipal(t) } };
  if (site.action !== undefined && site.req !== undefined) {
    for (const r of auth.resolvers ?? []) {
      if (!r.actions.has(site.action)) continue;
      const p = await r.resolve(token, site.req);
      if (p) return { ok: true, principal: p };
    }
  }
  return { ok: false, reason: 'the bearer token is not valid' };
}

type StaticPrincipal = Extract<Principal, { kind: 'static' }>;
/** The principal of each configured token, built once per config (its sets are read-only). */
const staticPrincipals = new WeakMap<TokenConfig, StaticPrincipal>();

function staticPrincipal(t: TokenConfig): StaticPrincipal {
  let p = staticPrincipals.get(t);
  if (!p) {
    p = {
      kind: 'static',
      tokenId: t.id,
      scopes: new Set(t.scopes),
      ...(t.agents ? { agents: new Set(t.agents) } : {}),
      credentialKey: staticCredentialKey(t.id),
    };
    staticPrincipals.set(t, p);
  }
  return p;
}

/** Whether the principal may assert (act as) local agent `id`. */
export function mayAssertAgent(p: Principal, id: string): boolean {
  if (p.kind === 'agent') return p.agentId === id;
  if (p.kind === 'static' && p.agents) return p.agents.has(id);
  return p.kind !== 'anonymous';
}

/** Static write-capable credentials are operators (the `operators` write policy). */
export function isOperator(p: Principal): boolean {
  return p.kind === 'trusted' || (p.kind === 'static' && p.scopes.has('write'));
}

/** An operator holding both admin and write may write into `members` rooms. */
export function isAdminWriter(p: Principal): boolean {
  return p.kind === 'trusted' || (p.kind === 'static' && p.scopes.has('write') && p.scopes.has('admin'));
}
