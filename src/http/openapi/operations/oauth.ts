// OAuth for MCP clients (#27 part 2; src/oauth/): the metadata, the provider under /oauth/, grants, the consent page.

import { HTML, ok, type OperationDoc, ref } from '../op-doc.js';

/** Per-route notes by "METHOD /path" (the router's spelling). */
export const OAUTH_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /.well-known/oauth-protected-resource': {
    tag: 'oauth',
    summary: 'Protected-resource metadata of /v1/mcp (RFC 9728).',
    responses: ok('ProtectedResourceMetadata'),
  },
  'GET /.well-known/oauth-protected-resource/v1/mcp': {
    tag: 'oauth',
    summary: 'Protected-resource metadata of /v1/mcp at its path-suffixed address (RFC 9728 section 3.1).',
    responses: ok('ProtectedResourceMetadata'),
  },
  'GET /.well-known/oauth-authorization-server/oauth': {
    tag: 'oauth',
    summary: 'Authorization-server metadata of the /oauth issuer (RFC 8414).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/.well-known/openid-configuration': {
    tag: 'oauth',
    summary: 'The same metadata at the OpenID discovery address.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/auth': {
    tag: 'oauth',
    summary: 'Authorization endpoint (code flow, PKCE S256 required); redirects to the console consent or back to the client.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/auth': {
    tag: 'oauth',
    summary: 'Authorization endpoint, form-encoded.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/auth/:uid': {
    tag: 'oauth',
    summary: 'Resumes an authorization after the console consent.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/token': {
    tag: 'oauth',
    summary: 'Token endpoint: authorization code and refresh token grants (form-encoded).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/token/revocation': {
    tag: 'oauth',
    summary: 'Token revocation (RFC 7009).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/reg': {
    tag: 'oauth',
    summary: 'Dynamic client registration (RFC 7591).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/reg/:client': {
    tag: 'oauth',
    summary: 'Read a registered client (registration access token).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'PUT /oauth/reg/:client': {
    tag: 'oauth',
    summary: 'Update a registered client (registration access token).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'DELETE /oauth/reg/:client': {
    tag: 'oauth',
    summary: 'Delete a registered client (registration access token).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /v1/oauth/grants': {
    tag: 'oauth',
    summary: 'The OAuth grants people approved: client, the agent it acts as, scopes, created and expiry (admin).',
    responses: ok({ type: 'object', required: ['grants'], properties: { grants: { type: 'array', items: ref('OAuthGrant') } } }),
  },
  'DELETE /v1/oauth/grants/:grant_id': {
    tag: 'oauth',
    summary: 'Revoke a grant: it and every token and code of it are deleted; the client must ask again (admin).',
    responses: ok({ type: 'object', required: ['revoked', 'id'], properties: { revoked: { const: true }, id: { type: 'string' } } }),
  },
  'GET /oauth/jwks': {
    tag: 'oauth',
    summary: 'Public signing keys of the provider.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /console/oauth/:uid': {
    tag: 'oauth',
    summary: 'The consent page of an authorization request: pick the agent the client acts as, approve or deny (HTML).',
    description: 'Needs a console session in this browser; without one it explains how to sign in and come back.',
    responses: {
      200: { description: 'The consent form.', media: HTML },
      400: { description: 'The request expired or belongs to another browser.', media: HTML },
      401: { description: 'Not signed in to the console.', media: HTML },
      403: { description: 'The session may not let a client act as any agent.', media: HTML },
    },
  },
  'POST /console/oauth/:uid': {
    tag: 'oauth',
    summary: 'Answers the consent (form-encoded: decision, agent, new_name); redirects the browser back to the client.',
    description: 'Same-origin only (the console CSRF rule). A denial ends the request with access_denied.',
    responses: { 303: { description: 'On to the client (through the provider).' } },
  },
};
