// GET /.well-known/oauth-protected-resource (and its /v1/mcp path variant, RFC 9728 section 3.1):
// public documents, read before a client holds any credential.

import type { Route } from '../http/router.js';
import { baseUrlOf } from '../discovery/base-url.js';
import { MCP_PATH, protectedResourceMetadata, RESOURCE_METADATA_PATH } from './metadata.js';

export interface OAuthDeps {
  address: () => { host: string; port: number } | undefined;
}

/** The OAuth discovery routes. */
export function oauthRoutes(deps: OAuthDeps): Route[] {
  const handler: Route['handler'] = ({ req, ctx }) => {
    const base = baseUrlOf(
      req.headers,
      Boolean((req.socket as { encrypted?: boolean }).encrypted),
      deps.address() ?? { host: '127.0.0.1', port: 0 },
    );
    return {
      body: protectedResourceMetadata(base, ctx.config.network.name),
      headers: { 'cache-control': 'public, max-age=300' },
    };
  };
  return [
    { method: 'GET', path: RESOURCE_METADATA_PATH, handler },
    { method: 'GET', path: `${RESOURCE_METADATA_PATH}${MCP_PATH}`, handler },
  ];
}
