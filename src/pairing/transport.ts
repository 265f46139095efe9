// How one server reaches its peer: one interface, two ways (direct HTTP with undici, or frames over
// a relay). Both send the pairing token as the bearer credential; the remote applies its own rules.

import type { Agent } from 'undici';

export interface PairResponse {
  status: number;
  /** Parsed JSON, or the raw text when the answer is not JSON. */
  body: unknown;
}

export type TransportFailure = 'unreachable' | 'peer_absent' | 'timeout' | 'closed';

/** The remote could not be asked (as opposed to answering with an error status). Messages carry no secrets. */
export class TransportError extends Error {
  constructor(
    readonly reason: TransportFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface PairTransport {
  readonly kind: 'direct' | 'relay';
  /** Sends one HTTP request to the peer, authenticated with the pairing token. Throws TransportError. */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<PairResponse>;
  /** Whether a request can be attempted now (the relay socket is open and the peer is there). */
  ready(): boolean;
  close(): Promise<void>;
}

export const REQUEST_TIMEOUT_MS = 15_000;

/** Parses a response body: JSON when it is JSON, else the text. */
export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Strips credentials and query from a URL for display and logs. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/** Direct pairing over HTTP(S) to `remote_base_url`. */
export class DirectTransport implements PairTransport {
  readonly kind = 'direct' as const;
  // undici loads on first use: it costs every start-up otherwise.
  private agent?: Agent;
  private closed = false;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {}

  ready(): boolean {
    return !this.closed;
  }

  async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<PairResponse> {
    if (this.closed) throw new TransportError('closed', 'the pairing is closing');
    const url = this.baseUrl.replace(/\/+$/, '') + path;
    const { Agent: UndiciAgent, request } = await import('undici');
    this.agent ??= new UndiciAgent({ connections: 4, keepAliveTimeout: 10_000, connect: { timeout: 5_000 } });
    try {
      const res = await request(url, {
        method,
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      return { status: res.statusCode, body: parseBody(await res.body.text()) };
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (/TIMEOUT/.test(code)) throw new TransportError('timeout', `no answer from ${displayUrl(this.baseUrl)} in ${this.timeoutMs} ms`);
      // undici error messages name the address, never the headers: safe to show.
      throw new TransportError('unreachable', `cannot reach ${displayUrl(this.baseUrl)}: ${code || (err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // destroy, not close: close would wait for a request the remote may never answer.
    await this.agent?.destroy().catch(() => {});
  }
}
