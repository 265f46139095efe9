// The oidc-provider instance behind /oauth/: PKCE S256 only, dynamic client registration,
// resource indicators bound to /v1/mcp, short-lived opaque access tokens, rotating refresh tokens,
// revocation. Its state lives in the store (adapter.ts) and its keys too (keys.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { errors } from 'oidc-provider';
import type { OAuthAdapterClass } from './adapter.js';
import type { OAuthKeys } from './keys.js';
import { MCP_PATH, OAUTH_PREFIX } from './metadata.js';

/** Seconds an access token lives. */
export const ACCESS_TOKEN_TTL = 600;

/** Lifetimes in seconds; an unlisted kind keeps the library's default. */
const TTL = {
  AccessToken: ACCESS_TOKEN_TTL,
  AuthorizationCode: 60,
  Interaction: 600,
  Session: 24 * 3600,
  Grant: 30 * 24 * 3600,
  RefreshToken: 30 * 24 * 3600,
};

/** A request handler for everything under /oauth/. */
export type OAuthHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Where the provider keeps its state and which keys it signs with (the same on every instance). */
export interface ProviderState {
  adapter: OAuthAdapterClass;
  keys: OAuthKeys;
}

/** Builds the provider for a server reached at `base`; returns the handler for /oauth/ requests. */
export function createProvider(base: string, state: ProviderState): OAuthHandler {
  const resource = `${base}${MCP_PATH}`;
  const provider = new Provider(`${base}${OAUTH_PREFIX}`, {
    pkce: { methods: ['S256'], required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          // A token for any other resource is refused at the authorization request.
          if (indicator !== resource) throw new errors.InvalidTarget('the only resource is /v1/mcp');
          return { scope: 'mcp', accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL };
        },
      },
    },
    scopes: ['mcp', 'offline_access'],
    rotateRefreshToken: true,
    ttl: TTL,
    adapter: state.adapter,
    cookies: { keys: state.keys.cookies },
    jwks: state.keys.jwks,
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/console/oauth/${i.uid}` },
  });
  const callback = provider.callback();
  return (req, res) => {
    // The provider routes on the path below its issuer's; it finds its mount path from originalUrl.
    const url = req.url ?? '/';
    Object.assign(req, { originalUrl: url, url: url.slice(OAUTH_PREFIX.length) || '/' });
    callback(req, res);
  };
}
