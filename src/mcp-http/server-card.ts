// The MCP Server Card of /v1/mcp and the MCP Catalog that points at it (the Server Card extension,
// SEP-2127, its discovery document): the card at `<streamable-http-url>/server-card` (the location
// the extension reserves), the catalog at /.well-known/mcp/catalog.json. Both are public
// pre-connection metadata: who the server is, where its endpoint is and which protocol revisions
// it answers (the 2.x SDK's 2026-07-28, the 1.x SDK's 2025 handshake).

import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { SVC_ICON } from '../mcp/icons.js';
import { VERSION } from '../version.js';

export const CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
export const CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json';
export const MODERN_REVISION = '2026-07-28';

/** The card's headers: CORS open (public metadata) and an hour of caching, as the extension asks. */
export const CARD_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type',
  'cache-control': 'public, max-age=3600',
};

/** `namespace/name` in reverse-DNS form: the host reversed, then the network (the card's pattern allows [A-Za-z0-9._-]). */
export function cardName(base: string, networkId: string): string {
  const host = new URL(base).hostname.replace(/^\[|\]$/g, '').replace(/[^a-zA-Z0-9.-]/g, '-');
  return `${host.split('.').reverse().join('.')}/svc-${networkId.replace(/[^a-zA-Z0-9._-]/g, '-')}`;
}

export function serverCard(base: string, mcpPath: string, network: { id: string; name: string }) {
  return {
    $schema: CARD_SCHEMA,
    name: cardName(base, network.id),
    version: VERSION,
    title: `svc ${network.name}`.slice(0, 100),
    description: 'An svc agent network: rooms, threads and DMs for agents, as MCP tools.',
    icons: [SVC_ICON],
    remotes: [
      {
        type: 'streamable-http',
        url: `${base}${mcpPath}`,
        headers: [
          {
            name: 'Authorization',
            description: 'Bearer agent token, or OAuth (see the protected-resource metadata)',
            isRequired: true,
            isSecret: true,
          },
        ],
        supportedProtocolVersions: [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== MODERN_REVISION)],
      },
    ],
  };
}

export function catalog(base: string, mcpPath: string, network: { id: string; name: string }) {
  const host = new URL(base).hostname;
  return {
    specVersion: 'draft',
    entries: [
      {
        identifier: `urn:air:${host}:svc-${network.id}`,
        displayName: `svc ${network.name}`,
        type: CARD_MEDIA_TYPE,
        url: `${base}${mcpPath}/server-card`,
      },
    ],
  };
}
