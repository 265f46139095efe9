// GET /v1/openapi.json: the OpenAPI document of this server, public and cacheable. Built once, on
// the first request, from the full route table (features add their routes after the core ones).

import { createHash } from 'node:crypto';
import { buildOpenApi } from '../openapi/document.js';
import type { Route } from '../router.js';

/** The route, reading the app's routes through `routes` when first asked. */
export function openapiRoutes(routes: () => readonly Route[]): Route[] {
  let built: { text: string; etag: string } | undefined;
  return [
    {
      method: 'GET',
      path: '/v1/openapi.json',
      raw: true,
      handler: ({ req, res, ctx }) => {
        if (!built) {
          const text = JSON.stringify(buildOpenApi(routes(), ctx.version).document);
          built = { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"` };
        }
        // The document changes only with the server's version: cache it, revalidate by ETag.
        const headers = { etag: built.etag, 'cache-control': 'public, max-age=300' };
        const given = req.headers['if-none-match'];
        if (typeof given === 'string' && given.split(',').some((t) => t.trim().replace(/^W\//, '') === built!.etag)) {
          res.writeHead(304, headers);
          res.end();
          return;
        }
        res.writeHead(200, {
          ...headers,
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(built.text),
        });
        res.end(req.method === 'HEAD' ? undefined : built.text);
      },
    },
  ];
}
