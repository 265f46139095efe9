// The oidc-provider instance behind /oauth/: the authorization code with PKCE S256 only (no other
// response type is offered), bounded dynamic client registration (registration.ts), client ID
// metadata documents, resource indicators bound to /v1/mcp, short-lived opaque access tokens,
// rotating refresh tokens, revocation. Accounts are agent registrations (account.ts): a grant
// acts as the agent the person picked on the consent page. Storage is the `adapter` option
// (oidc-provider's memory adapter when absent; see docs/oauth.md).

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { type AdapterConstructor, errors } from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import { renderError } from './authorization-errors.js';
import { withClientMetadataDocuments, type MetadataFetch } from './client-metadata.js';
import { GRANT_TTL } from './grants.js';
import { A2A_SCOPE, MCP_PATH, MCP_SCOPE, OAUTH_PREFIX } from './metadata.js';
import { installRules, type ProviderRules } from './provider-rules.js';
import { withRegistrationLimits } from './registration.js';

/** Seconds an access token lives. */
export const ACCESS_TOKEN_TTL = 600;

/** Lifetimes in seconds; an unlisted kind keeps the library's default. */
const TTL = {
  AccessToken: ACCESS_TOKEN_TTL,
  AuthorizationCode: 60,
  Interaction: 600,
  Session: 24 * 3600,
  // A consent's grant is stored pending for minutes and lasts this once its code is exchanged (grants.ts).
  Grant: GRANT_TTL,
  RefreshToken: 30 * 24 * 3600,
};

/** A request handler for everything under /oauth/. */
export type OAuthHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ProviderOptions {
  /** Where clients, grants, codes, tokens and interactions live; the library's memory adapter when absent. */
  adapter?: AdapterConstructor;
  /** Whether an account exists: the agent registration it names (account.ts); a removed agent's grant stops refreshing. */
  accountExists: (accountId: string) => Promise<boolean>;
  /** Fetches client ID metadata documents (URL-form client_id); none are accepted when absent. */
  fetchClientMetadata?: MetadataFetch;
  /** Keys signing the provider's cookies, newest first; random per process when absent. */
  cookieKeys?: string[];
  /** The provider's signing keys (a private JWKS); the library's development keys when absent. */
  jwks?: { keys: Record<string, unknown>[] };
  /** Told of an error the provider answered 500 (it logs nothing itself). */
  onServerError?: (err: unknown) => void;
  /** svc's rules around the provider's routes (provider-rules.ts). */
  rules?: ProviderRules;
}

export interface BuiltProvider {
  provider: Provider;
  /** The resource its tokens are for: `<base>/v1/mcp`. */
  resource: string;
  handle: OAuthHandler;
}

/** Builds the provider for a server reached at `base`. */
export function createProvider(base: string, opts: ProviderOptions): BuiltProvider {
  const resource = `${base}${MCP_PATH}`;
  const adapter = withRegistrationLimits(opts.adapter ?? MemoryAdapter);
  const provider = new Provider(`${base}${OAUTH_PREFIX}`, {
    adapter: opts.fetchClientMetadata ? withClientMetadataDocuments(adapter, opts.fetchClientMetadata) : adapter,
    findAccount: async (_ctx: unknown, id: string) =>
      (await opts.accountExists(id)) ? { accountId: id, claims: () => ({ sub: id }) } : undefined,
    pkce: { methods: ['S256'], required: () => true },
    // The code flow only: no implicit grant, no id_token in any response type (the metadata says so).
    responseTypes: ['code'],
    renderError,
    features: {
      devInteractions: { enabled: false },
      // No registration access token: a client cannot read or change its registration, and none is stored per client.
      registration: { enabled: true, issueRegistrationAccessToken: false },
      // Endpoints svc does not mount (routes.ts) are not offered in the metadata either.
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          // A token for any other resource is refused at the authorization request.
          if (indicator !== resource) throw new errors.InvalidTarget('the only resource is /v1/mcp');
          return { scope: `${MCP_SCOPE} ${A2A_SCOPE}`, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL };
        },
      },
    },
    discovery: { client_id_metadata_document_supported: Boolean(opts.fetchClientMetadata) },
    scopes: [MCP_SCOPE, A2A_SCOPE, 'offline_access'],
    // MCP clients ask for the resource's scope only (`mcp`, from its metadata), not offline_access:
    // a client that registered the refresh_token grant gets a refresh token anyway.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Tokens outlive the provider's browser session: the person's identity is the console session,
    // and a consent for another agent replaces the provider's session (consent.ts).
    expiresWithSession: async () => false,
    ttl: TTL,
    // Per process unless given (the keys belong in the store: docs/oauth.md).
    cookies: { keys: opts.cookieKeys ?? [randomBytes(32).toString('base64url')] },
    ...(opts.jwks ? { jwks: opts.jwks } : {}),
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/console/oauth/${i.uid}` },
  });
  if (opts.onServerError) provider.on('server_error', (_ctx: unknown, err: unknown) => opts.onServerError!(err));
  installRules(provider, opts.rules ?? {});
  const callback = provider.callback();
  const handle: OAuthHandler = (req, res) => {
    // The provider routes on the path below its issuer's; it finds its mount path from originalUrl.
    const url = req.url ?? '/';
    Object.assign(req, { originalUrl: url, url: url.slice(OAUTH_PREFIX.length) || '/' });
    callback(req, res);
  };
  return { provider, resource, handle };
}
