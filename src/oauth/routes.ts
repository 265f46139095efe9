// The OAuth routes: the protected-resource metadata of /v1/mcp (RFC 9728, and its path variant),
// the authorization-server metadata (RFC 8414) and the provider's endpoints under /oauth/. The
// provider reads its own bodies (no schema here, so the router never touches them) and judges its
// own credentials (lenientAuth: a registration access token is not one of ours).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../http/router.js';
import { AS_METADATA_PATH, MCP_PATH, OAUTH_PREFIX, protectedResourceMetadata, RESOURCE_METADATA_PATH } from './metadata.js';
import type { OAuthHandler } from './provider.js';
import type { Providers } from './providers.js';

/** Provider endpoints as [method, path below /oauth]. */
const PROVIDER_PATHS: [Route['method'], string][] = [
  ['GET', '/.well-known/openid-configuration'],
  ['GET', '/auth'],
  ['POST', '/auth'],
  ['GET', '/auth/:uid'],
  ['POST', '/token'],
  ['POST', '/token/revocation'],
  ['POST', '/reg'],
  ['GET', '/reg/:client'],
  ['PUT', '/reg/:client'],
  ['DELETE', '/reg/:client'],
  ['GET', '/jwks'],
];

/** Hands a request to the provider; settles when the answer is sent (or the client went away). */
function serve(handler: OAuthHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    res.once('close', () => resolve());
    handler(req, res);
  });
}

/** The OAuth routes. */
export function oauthRoutes(providers: Providers): Route[] {
  const provider = async (req: IncomingMessage): Promise<OAuthHandler> => (await providers.for(req)).handle;
  const resourceMetadata: Route['handler'] = ({ req, ctx }) => ({
    body: protectedResourceMetadata(providers.baseOf(req), ctx.config.network.name),
    headers: { 'cache-control': 'public, max-age=300' },
  });
  const asMetadata: Route['handler'] = async ({ req, res }) => {
    req.url = `${OAUTH_PREFIX}/.well-known/openid-configuration`;
    return serve(await provider(req), req, res);
  };
  const mounted: Route[] = PROVIDER_PATHS.map(([method, p]) => ({
    method,
    path: `${OAUTH_PREFIX}${p}`,
    raw: true,
    lenientAuth: true,
    handler: async ({ req, res }) => serve(await provider(req), req, res),
  }));
  return [
    { method: 'GET', path: RESOURCE_METADATA_PATH, handler: resourceMetadata },
    { method: 'GET', path: `${RESOURCE_METADATA_PATH}${MCP_PATH}`, handler: resourceMetadata },
    { method: 'GET', path: `${AS_METADATA_PATH}${OAUTH_PREFIX}`, raw: true, handler: asMetadata },
    ...mounted,
  ];
}
