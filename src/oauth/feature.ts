// OAuth for MCP clients as a Feature: the protected-resource and authorization-server metadata,
// the provider under /oauth/ with its state and keys in the store, the consent page in the console,
// OAuth access tokens as credentials of /v1/mcp (a resolver for the one auth path), the 401
// challenge there, the admin routes over grants and the periodic sweep of expired OAuth state; a
// removed agent's grants are revoked with it.

import type { IncomingMessage } from 'node:http';
import type { FeatureFactory } from '../feature.js';
import { baseUrlOf } from '../discovery/base-url.js';
import { agentOfAccount } from './account.js';
import { accessTokenResolver } from './access-tokens.js';
import { adapterOver, startSweeper } from './adapter.js';
import { consentRoutes } from './consent.js';
import { confirmGrant, revokeGrantsOf } from './grants.js';
import { grantRoutes } from './grants-routes.js';
import { loadKeys } from './keys.js';
import { bearerChallenge, MCP_PATH } from './metadata.js';
import { metadataFetcher } from './metadata-fetch.js';
import { Providers, type StoredState } from './providers.js';
import { REGISTRATION_LIMITS, RegistrationGate } from './registration.js';
import { oauthRoutes } from './routes.js';

/** Whether the server listens on a loopback address only (then its clients are local too). */
function loopbackOnly(addr: { host: string } | undefined): boolean {
  const h = addr?.host ?? '';
  return h === 'localhost' || h === '::1' || h.startsWith('127.');
}

export const oauthFeature: FeatureFactory = (app) => {
  const baseOf = (req: IncomingMessage): string =>
    baseUrlOf(req.headers, Boolean((req.socket as { encrypted?: boolean }).encrypted), app.address() ?? { host: '127.0.0.1', port: 0 });
  const getAgent = (id: string) => app.ctx.store.getAgent(id);
  const accountExists = async (accountId: string) => (await agentOfAccount(accountId, getAgent)) !== undefined;
  const kv = app.ctx.store.kv;
  const state = async (): Promise<StoredState> => {
    const keys = await loadKeys(kv);
    return { adapter: adapterOver(kv), cookieKeys: keys.cookies, jwks: keys.jwks };
  };
  // One gate for every provider (base URL): the rate and the cap are the server's.
  const registration = new RegistrationGate(kv, REGISTRATION_LIMITS);
  const rules = {
    admitRegistration: (req: IncomingMessage) => registration.admit(req),
    codeExchanged: (grantId: string) => confirmGrant(kv, grantId, REGISTRATION_LIMITS.unusedClientTtl),
    log: (m: string) => app.ctx.log('warn', m),
  };
  // The one place the provider's options are set.
  const onServerError = (err: unknown) => app.ctx.log('error', 'oauth request failed', { error: String((err as Error)?.stack ?? err) });
  const providers = new Providers(
    { accountExists, fetchClientMetadata: metadataFetcher(() => loopbackOnly(app.address())), rules, onServerError },
    state,
    baseOf,
  );
  /** Revokes the grants of a removed agent: any registration of its id but the current one, if any. */
  const agentRemoved = async (agentId: string): Promise<void> => {
    const current = await getAgent(agentId);
    await revokeGrantsOf(kv, agentId, current?.actor_uid);
  };
  let stopSweeper: (() => void) | undefined;
  return {
    routes: [...oauthRoutes(providers), ...consentRoutes(providers), ...grantRoutes],
    tokenResolver: accessTokenResolver(providers, getAgent),
    observe: {
      event: ({ event: e }) => {
        if (e.type !== 'agent.removed') return;
        const id = e.agent?.agent_id ?? e.agent_id;
        // The binding of each grant to its registration already refuses them (account.ts); this
        // deletes them, so `svc agents grants` no longer lists them.
        if (id)
          agentRemoved(id).catch((err: Error) =>
            app.ctx.log('warn', `oauth: revoking the grants of removed agent ${id} failed: ${err.message}`),
          );
      },
    },
    challenge: (req) => ((req.url ?? '').split('?')[0] === MCP_PATH ? bearerChallenge(baseOf(req)) : undefined),
    started: () => {
      stopSweeper = startSweeper(kv, undefined, (m) => app.ctx.log('warn', m));
    },
    close: () => stopSweeper?.(),
  };
};
