// One-time upload URLs (#41 part 5, the MCP tools' large files): POST /v1/files/upload-urls, as
// any uploader, answers a URL that takes one PUT of the file's bytes without another credential;
// the PUT is the upload route itself, run as the credential that asked for the URL. A URL works
// once (it is claimed before the body is read, so two PUTs never both store) and expires after
// UPLOAD_URL_TTL_MS. The tokens live in this process: the URL names the instance that made it, as
// the caller reached it (docs/files.md says so for several instances behind one address).

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../auth/principal.js';
import { AppError } from '../errors.js';
import type { Route } from '../http/router.js';

/** How long an upload URL works: 15 minutes. */
export const UPLOAD_URL_TTL_MS = 15 * 60_000;
/** Upload URLs one process keeps at once; past it the oldest are forgotten. */
const MAX_PENDING = 10_000;

interface Pending {
  principal: Principal;
  name: string;
  contentType: string | undefined;
  expires: number;
}

export interface UploadUrlDeps {
  /** The upload route (POST /v1/files) whose check and handler a PUT runs. */
  upload: Route;
  /** The server's URL as the request reached it. */
  baseUrl: (req: IncomingMessage) => string;
  fileBytes: () => number;
  now?: () => number;
}

/** The two routes: making a URL, and the PUT it takes. */
export function uploadUrlRoutes(d: UploadUrlDeps): Route[] {
  const pending = new Map<string, Pending>();
  const now = d.now ?? Date.now;
  const sweep = () => {
    const t = now();
    for (const [k, p] of pending) if (p.expires <= t) pending.delete(k);
    while (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
  };
  return [
    {
      method: 'POST',
      path: '/v1/files/upload-urls',
      ...(d.upload.action ? { action: d.upload.action } : {}),
      schema: 'upload-url',
      handler: (c) => {
        const b = c.body as { name: string; content_type?: string };
        sweep();
        const token = randomBytes(24).toString('base64url');
        const expires = now() + UPLOAD_URL_TTL_MS;
        pending.set(token, { principal: c.principal, name: b.name, contentType: b.content_type, expires });
        return {
          status: 201,
          body: {
            upload_url: `${d.baseUrl(c.req)}/v1/files/uploads/${token}`,
            method: 'PUT',
            expires_at: new Date(expires).toISOString(),
            max_bytes: d.fileBytes(),
          },
        };
      },
    },
    {
      method: 'PUT',
      path: '/v1/files/uploads/:token',
      // The token in the path is the credential: the handler judges it.
      ...(d.upload.body ? { body: d.upload.body } : {}),
      handler: (c) => {
        const p = pending.get(c.params.token ?? '');
        pending.delete(c.params.token ?? '');
        // Unknown, used and expired URLs answer alike: nothing tells a guesser which.
        if (!p || p.expires <= now()) throw new AppError('not_found', 'no such upload URL (each works once, for 15 minutes)');
        const url = new URL(c.url.href);
        url.searchParams.set('name', p.name);
        if (p.contentType !== undefined && c.req.headers['content-type'] === undefined) c.req.headers['content-type'] = p.contentType;
        return d.upload.handler({ ...c, url, principal: p.principal });
      },
    },
  ];
}
