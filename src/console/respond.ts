// Writes the console's non-JSON responses (pages, assets, redirects) with its security headers.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './security.js';

/** Sends a complete response; a HEAD request gets the headers only. */
export function sendPage(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string | string[]>,
): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-length': String(buf.length), ...headers });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

export const HTML = 'text/html; charset=utf-8';
