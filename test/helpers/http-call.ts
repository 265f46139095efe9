// One HTTP exchange for the test servers' req/get/post, on node:http. Global fetch cost a test
// process about 60 ms to load (undici) and ~0.8 ms of CPU per request, a quarter of an HTTP-heavy
// test file's CPU; node:http with a keep-alive agent costs a fifth of that. What fetch did that the
// tests rely on is kept: its default request headers, Content-Length on bodies (0 for a POST, PUT
// or PATCH without one), redirects followed, and a Headers-like answer.

import http from 'node:http';

/** How tests read an answer's headers: what fetch's Headers and ResponseHeaders both offer. */
export interface AnswerHeaders extends Iterable<[string, string]> {
  get(name: string): string | null;
  has(name: string): boolean;
  getSetCookie(): string[];
  forEach(fn: (value: string, name: string) => void): void;
}

/** The headers of an answer, read as fetch's Headers are read (names in any case; set-cookie kept apart). */
export class ResponseHeaders implements AnswerHeaders {
  readonly #raw: http.IncomingHttpHeaders;

  constructor(raw: http.IncomingHttpHeaders) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const v = this.#raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(', ') : v;
  }

  has(name: string): boolean {
    return this.#raw[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    return this.#raw['set-cookie'] ?? [];
  }

  /** Sorted by name, as Headers iterates; each set-cookie on its own. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#raw).sort()) {
      if (name === 'set-cookie') for (const c of this.getSetCookie()) yield [name, c];
      else yield [name, this.get(name)!];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) fn(value, name);
  }
}

export interface Exchange {
  status: number;
  text: string;
  headers: ResponseHeaders;
}

/** What fetch sends unless told otherwise. */
const FETCH_DEFAULTS: Record<string, string> = { accept: '*/*', 'accept-language': '*', 'sec-fetch-mode': 'cors', 'user-agent': 'node' };
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** One agent per test process: its idle connections do not keep the process alive. */
const agent = new http.Agent({ keepAlive: true });

function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  retried = false,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          text: Buffer.concat(chunks).toString('utf8'),
          headers: new ResponseHeaders(res.headers),
        }),
      );
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as this request went out: sent again once on a
      // new one, as fetch does (the request never reached the application).
      if (req.reusedSocket && !retried && err.code === 'ECONNRESET') once(url, method, headers, body, true).then(resolve, reject);
      else reject(err);
    });
    req.end(body);
  });
}

/** Sends one request and reads the whole answer, following redirects as fetch does (at most 20). */
export async function httpCall(target: string, method: string, given: Record<string, string>, body?: string | Buffer): Promise<Exchange> {
  let url = new URL(target);
  let headers: Record<string, string> = { ...FETCH_DEFAULTS };
  for (const [k, v] of Object.entries(given)) headers[k.toLowerCase()] = v;
  for (let hops = 0; ; hops++) {
    const sent = { ...headers };
    if (body !== undefined) sent['content-length'] = String(Buffer.byteLength(body));
    else if (WITH_BODY.has(method)) sent['content-length'] = '0';
    const res = await once(url, method, sent, body);
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || location === null) return res;
    if (hops === 20) throw new Error(`${target}: more than 20 redirects`);
    const next = new URL(location, url);
    // A 303 (and a 301 or 302 after a POST) turns into a GET without the body.
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith('content-')));
    }
    // Credentials stay with their origin.
    if (next.origin !== url.origin) delete headers.authorization;
    url = next;
  }
}
