// OAuth access tokens as credentials of /v1/mcp only: the resolver the oauth feature hands to the
// one auth path (src/auth/principal.ts). A token is valid when the provider knows it, it has not
// expired, it is bound to this server's /v1/mcp and carries the mcp scope, its grant still exists
// and so does the registration of the agent it was issued for (account.ts: a later agent of the
// same id is not it); it then acts as that agent with an agent token's scopes and credential key.
// On the A2A gateway (action `a2a`) the token acts as its agent with the scope `a2a` when it was
// granted it, and with no scope otherwise: a valid token without it is refused with 403.

import { AGENT_TOKEN_SCOPES, type Principal, type TokenResolver } from '../auth/principal.js';
import type { AccessTokenInstance } from 'oidc-provider';
import { type AccountAgent, agentOfAccount } from './account.js';
import { A2A_PREFIX, A2A_SCOPE, MCP_SCOPE } from './metadata.js';
import type { Scope } from '../protocol/types.js';
import type { Providers } from './providers.js';

/** Opaque access tokens are base64url; anything else is not worth a lookup. */
const SHAPE = /^[A-Za-z0-9_-]{20,128}$/;

/** Whether a token's audience is exactly `resource`. */
export function boundTo(at: Pick<AccessTokenInstance, 'aud'>, resource: string): boolean {
  const aud = Array.isArray(at.aud) ? at.aud : at.aud === undefined ? [] : [at.aud];
  return aud.length === 1 && aud[0] === resource;
}

const A2A_SCOPES: ReadonlySet<Scope> = new Set<Scope>([A2A_SCOPE]);
const NO_SCOPES: ReadonlySet<Scope> = new Set<Scope>();

/** The resolver for the `mcp` and `a2a` actions. */
export function accessTokenResolver(providers: Providers, agentOf: (id: string) => Promise<AccountAgent | undefined>): TokenResolver {
  return {
    actions: new Set(['mcp', 'a2a']),
    async resolve(token, req): Promise<Principal | undefined> {
      if (!SHAPE.test(token)) return undefined;
      const { provider, resource } = await providers.for(req);
      const at = await provider.AccessToken.find(token);
      if (!at || at.isExpired || !boundTo(at, resource)) return undefined;
      const scopes = (at.scope ?? '').split(' ');
      const a2a = (req.url ?? '').startsWith(A2A_PREFIX);
      if (!a2a && !scopes.includes(MCP_SCOPE)) return undefined;
      // A revoked grant takes its tokens with it, whatever the storage keeps.
      if (!(await provider.Grant.find(at.grantId))) return undefined;
      const agent = await agentOfAccount(at.accountId, agentOf);
      if (!agent) return undefined;
      // The agent's own credential key: the token speaks for the agent as its own token would.
      if (a2a)
        return {
          kind: 'agent',
          agentId: agent.id,
          scopes: scopes.includes(A2A_SCOPE) ? A2A_SCOPES : NO_SCOPES,
          credentialKey: agent.credential_key,
        };
      return { kind: 'agent', agentId: agent.id, scopes: AGENT_TOKEN_SCOPES, credentialKey: agent.credential_key };
    },
  };
}
