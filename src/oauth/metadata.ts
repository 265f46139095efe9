// The protected-resource metadata of /v1/mcp (RFC 9728) and the WWW-Authenticate challenge that
// points an MCP client at it. Pure: the base URL comes from the caller.

/** The path OAuth access tokens are for; the only resource this server issues them for. */
export const MCP_PATH = '/v1/mcp';

/** Where the provider's endpoints are mounted (authorization, token, registration, revocation). */
export const OAUTH_PREFIX = '/oauth';

/** The scope of /v1/mcp, and what a consent grants. */
export const MCP_SCOPE = 'mcp';

/** The scope an access token needs on the A2A gateway (/v1/a2a/, docs/a2a.md), asked for beside `mcp`. */
export const A2A_SCOPE = 'a2a';

/** Where the A2A gateway's routes are; an OAuth token is judged there by its `a2a` scope. */
export const A2A_PREFIX = '/v1/a2a/';

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  scopes_supported: string[];
  resource_name: string;
}

/** The RFC 9728 document for /v1/mcp on `base` (`http(s)://host[:port]`). */
export function protectedResourceMetadata(base: string, name: string): ProtectedResourceMetadata {
  return {
    resource: `${base}${MCP_PATH}`,
    // The issuer is this server's /oauth; its RFC 8414 document is at
    // /.well-known/oauth-authorization-server/oauth (the path-inserted form).
    authorization_servers: [`${base}${OAUTH_PREFIX}`],
    bearer_methods_supported: ['header'],
    scopes_supported: [MCP_SCOPE, A2A_SCOPE],
    resource_name: name,
  };
}

/** The challenge a 401 from /v1/mcp carries (MCP authorization spec, RFC 9728 section 5.1). */
export function bearerChallenge(base: string): string {
  return `Bearer resource_metadata="${base}${RESOURCE_METADATA_PATH}${MCP_PATH}"`;
}
