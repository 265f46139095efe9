// One HTTP exchange of the typed client, on the runtime's own node:http/node:https. Neither the
// undici package nor fetch: loading undici costs about 100 ms of every CLI command's start
// (measured 90-120 ms against 5 ms for node:http), and fetch refuses the ports the Fetch standard
// calls bad (a server on 6000 or 6667 would be unreachable). See docs/architecture.md.

import http from 'node:http';
import https from 'node:https';

export interface Exchange {
  status: number;
  requestId: string | undefined;
  text: string;
}

/** An error of a call that got no full answer in time. */
export class CallTimeout extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`nothing arrived for ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Sends one request and reads the whole answer as text. `timeoutMs` bounds every wait: the
 * connection, the headers and each stretch of the body (the socket's idle time).
 */
export function exchange(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? https.request : http.request;
    const headers = { ...init.headers, ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) };
    const req = send(target, { method: init.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const rid = res.headers['x-request-id'];
        resolve({
          status: res.statusCode ?? 0,
          requestId: typeof rid === 'string' ? rid : undefined,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.setTimeout(init.timeoutMs, () => req.destroy(new CallTimeout(init.timeoutMs)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** An answer whose body is read as it comes (GET /v1/export). */
export interface StreamedExchange {
  status: number;
  requestId: string | undefined;
  body: http.IncomingMessage;
}

/**
 * Sends one request and resolves once the headers are in, with the body unread: the caller reads
 * it at its own pace (TCP holds the server back meanwhile). `timeoutMs` bounds the connection, the
 * headers and each stretch of the body, as in exchange.
 */
export function openStream(url: string, init: { headers: Record<string, string>; timeoutMs: number }): Promise<StreamedExchange> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? https.request : http.request;
    const req = send(target, { method: 'GET', headers: init.headers }, (res) => {
      const rid = res.headers['x-request-id'];
      resolve({ status: res.statusCode ?? 0, requestId: typeof rid === 'string' ? rid : undefined, body: res });
    });
    req.setTimeout(init.timeoutMs, () => req.destroy(new CallTimeout(init.timeoutMs)));
    req.on('error', reject);
    req.end();
  });
}
