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
import type { FileUploads } from '../network/file-uploads.js';

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

/** The URLs this process made, and their two routes: making a URL, and the PUT it takes. */
export function uploadUrls(d: UploadUrlDeps): { make: FileUploads['uploadUrl']; routes: Route[] } {
  const pending = new Map<string, Pending>();
  const now = d.now ?? Date.now;
  const sweep = () => {
    const t = now();
    for (const [k, p] of pending) if (p.expires <= t) pending.delete(k);
    while (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
  };
  const make: FileUploads['uploadUrl'] = (principal, baseUrl, o) => {
    sweep();
    const token = randomBytes(24).toString('base64url');
    const expires = now() + UPLOAD_URL_TTL_MS;
    pending.set(token, { principal, name: o.name, contentType: o.contentType, expires });
    return {
      upload_url: `${baseUrl}/v1/files/uploads/${token}`,
      method: 'PUT',
      expires_at: new Date(expires).toISOString(),
      max_bytes: d.fileBytes(),
    };
  };
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/v1/files/upload-urls',
      ...(d.upload.action ? { action: d.upload.action } : {}),
      schema: 'upload-url',
      doc: {
        tag: 'files',
        summary: 'A one-time URL that takes one upload (PUT) without another credential, for 15 minutes.',
        description:
          "For a runtime that holds a file's bytes but not the token (the MCP tools' large files): the PUT stores the file as the credential that asked for the URL, and answers as POST /v1/files does.",
        responses: {
          201: {
            description: 'The URL.',
            json: {
              type: 'object',
              required: ['upload_url', 'method', 'expires_at', 'max_bytes'],
              properties: {
                upload_url: { type: 'string' },
                method: { const: 'PUT' },
                expires_at: { type: 'string', format: 'date-time' },
                max_bytes: { type: 'integer' },
              },
            },
          },
        },
      },
      handler: (c) => {
        const b = c.body as { name: string; content_type?: string };
        return { status: 201, body: make(c.principal, d.baseUrl(c.req), { name: b.name, contentType: b.content_type }) };
      },
    },
    {
      method: 'PUT',
      path: '/v1/files/uploads/:token',
      // The token in the path is the credential: the handler judges it.
      ...(d.upload.body ? { body: d.upload.body } : {}),
      doc: {
        tag: 'files',
        summary: 'Upload a file to a one-time URL (no Authorization: the token in the path is the credential).',
        description:
          'The raw bytes with their Content-Type, as POST /v1/files; the name is the one the URL was made for. Works once; an unknown, used or expired URL answers 404.',
        request: { 'application/octet-stream': { type: 'string', format: 'binary' } },
        responses: { 201: { description: 'The stored file.', json: 'FileUpload' } },
        errors: [404, 408, 413, 429, 507],
      },
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
  return { make, routes };
}
