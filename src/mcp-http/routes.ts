// The /v1/mcp route (serve.ts answers it). The MCP SDK and the tools load with the first request:
// they cost every server start about 150 ms of CPU otherwise, and most servers never get one.

import type { AppError } from '../errors.js';
import { BodyError, type BodySpec } from '../http/body.js';
import type { Route } from '../http/router.js';
import { baseUrlOf } from '../discovery/base-url.js';
import type { McpShared } from './serve.js';

export type { McpShared };

/** The path of the MCP endpoint. */
export const MCP_PATH = '/v1/mcp';

/**
 * A body the edge refused, as a JSON-RPC error (id null: no request was read), as the MCP SDK's
 * transport answers: text that is not JSON (or not UTF-8) is -32700 Parse error; JSON the server
 * will not take (too deep, a NUL) is -32600 Invalid Request; size and time are -32000.
 */
export function jsonRpcRefusal(err: AppError): { status: number; body: unknown } {
  const problem = err instanceof BodyError ? err.problem : undefined;
  const code = problem === 'syntax' ? -32700 : problem === 'content' ? -32600 : -32000;
  const message = code === -32700 ? `Parse error: ${err.message}` : code === -32600 ? `Invalid Request: ${err.message}` : err.message;
  return { status: err.status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

const JSON_RPC_BODY: BodySpec = { kind: 'json', refusal: jsonRpcRefusal };

/** Where the MCP Catalog (the Server Card extension's discovery document) is. */
export const MCP_CATALOG_PATH = '/.well-known/mcp/catalog.json';

/** The base URL a request reached this server at (the card names the endpoint by it). */
function baseOf(req: Parameters<Route['handler']>[0]['req']): string {
  const sock = req.socket as typeof req.socket & { encrypted?: boolean };
  return baseUrlOf(req.headers, Boolean(sock.encrypted), { host: sock.localAddress ?? '127.0.0.1', port: sock.localPort ?? 80 });
}

/** The MCP route; `shared` bounds concurrent waits per agent and finds calls to cancel on this instance. */
export function mcpRoutes(shared: McpShared): Route[] {
  return [
    {
      method: 'POST',
      path: MCP_PATH,
      action: 'mcp',
      raw: true,
      body: JSON_RPC_BODY,
      handler: async ({ ctx, principal, req, res, body }) => (await import('./serve.js')).serve(ctx, principal, req, res, shared, body),
    },
    {
      method: 'GET',
      path: `${MCP_PATH}/server-card`,
      handler: async ({ ctx, req }) => {
        const c = await import('./server-card.js');
        return {
          body: c.serverCard(baseOf(req), MCP_PATH, ctx.config.network),
          headers: { ...c.CARD_HEADERS, 'content-type': `${c.CARD_MEDIA_TYPE}; charset=utf-8` },
        };
      },
    },
    {
      method: 'GET',
      path: MCP_CATALOG_PATH,
      handler: async ({ ctx, req }) => {
        const c = await import('./server-card.js');
        return { body: c.catalog(baseOf(req), MCP_PATH, ctx.config.network), headers: c.CARD_HEADERS };
      },
    },
  ];
}
