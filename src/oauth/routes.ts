// The OAuth routes: the protected-resource metadata of /v1/mcp (RFC 9728, and its path variant),
// the authorization-server metadata (RFC 8414) and the provider's endpoints under /oauth/. Bodies
// pass the edge like every other (src/http/body.ts: size, time, depth) and reach the provider
// already read (`req.body`, which oidc-provider's selective_body.js takes when the stream is
// consumed); the provider judges its own credentials (lenientAuth: a registration access token is
// not one of ours).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppError } from '../errors.js';
import type { BodySpec } from '../http/body.js';
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

/**
 * Bodies the provider takes: JSON (registration) parsed and checked by the edge, forms as bytes
 * (the provider parses those as a query string). 56 KiB is the provider's own bound.
 */
const PROVIDER_BODY: BodySpec = { kind: 'typed', limit: 56 * 1024, refusal: oauthRefusal };

/** A body the edge refused, as OAuth errors are (RFC 6749 5.2, RFC 7591 3.2.2). */
function oauthRefusal(err: AppError): { status: number; body: unknown } {
  return { status: err.status, body: { error: 'invalid_request', error_description: err.message } };
}

/**
 * Hands a request to the provider; settles when the answer is sent (or the client went away).
 * `body`: what the edge read (undefined when the request had none).
 */
function serve(handler: OAuthHandler, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
  if (body !== undefined) Object.assign(req, { body });
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
    ...(method === 'GET' ? {} : { body: PROVIDER_BODY }),
    handler: async ({ req, res, body }) => serve(await provider(req), req, res, body),
  }));
  return [
    { method: 'GET', path: RESOURCE_METADATA_PATH, handler: resourceMetadata },
    { method: 'GET', path: `${RESOURCE_METADATA_PATH}${MCP_PATH}`, handler: resourceMetadata },
    { method: 'GET', path: `${AS_METADATA_PATH}${OAUTH_PREFIX}`, raw: true, handler: asMetadata },
    ...mounted,
  ];
}
