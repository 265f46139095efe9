// OAuth for MCP clients as a Feature: the protected-resource and authorization-server metadata,
// the provider under /oauth/, the consent page in the console, OAuth access tokens as credentials
// of /v1/mcp (a resolver for the one auth path) and the 401 challenge there.

import type { IncomingMessage } from 'node:http';
import type { FeatureFactory } from '../feature.js';
import { baseUrlOf } from '../discovery/base-url.js';
import { accessTokenResolver } from './access-tokens.js';
import { consentRoutes } from './consent.js';
import { bearerChallenge, MCP_PATH } from './metadata.js';
import { metadataFetcher } from './metadata-fetch.js';
import { Providers } from './providers.js';
import { oauthRoutes } from './routes.js';

/** Whether the server listens on a loopback address only (then its clients are local too). */
function loopbackOnly(addr: { host: string } | undefined): boolean {
  const h = addr?.host ?? '';
  return h === 'localhost' || h === '::1' || h.startsWith('127.');
}

export const oauthFeature: FeatureFactory = (app) => {
  const baseOf = (req: IncomingMessage): string =>
    baseUrlOf(req.headers, Boolean((req.socket as { encrypted?: boolean }).encrypted), app.address() ?? { host: '127.0.0.1', port: 0 });
  const agentExists = async (id: string) => (await app.ctx.store.getAgent(id)) !== undefined;
  // The one place the provider's options are set (storage: an `adapter` here).
  const providers = new Providers({ agentExists, fetchClientMetadata: metadataFetcher(() => loopbackOnly(app.address())) }, baseOf);
  return {
    routes: [...oauthRoutes(providers), ...consentRoutes(providers)],
    tokenResolver: accessTokenResolver(providers, (id) => app.ctx.store.getAgent(id)),
    challenge: (req) => ((req.url ?? '').split('?')[0] === MCP_PATH ? bearerChallenge(baseOf(req)) : undefined),
  };
};
