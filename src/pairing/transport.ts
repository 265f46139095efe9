// How one server reaches its peer: one interface, two ways (direct HTTP with undici, or frames over
// a relay). Both send the pairing token as the bearer credential; the remote applies its own rules.

import type { Readable } from 'node:stream';
import type { Agent } from 'undici';

export interface PairResponse {
  status: number;
  /** Parsed JSON, or the raw text when the answer is not JSON. */
  body: unknown;
}

export type TransportFailure = 'unreachable' | 'peer_absent' | 'timeout' | 'closed';

/**
 * The remote could not be asked (as opposed to answering with an error status). The message is
 * words fit for an API answer; `detail` keeps the raw cause (an error code, a URL) for the log only.
 */
export class TransportError extends Error {
  constructor(
    readonly reason: TransportFailure,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/**
 * A socket or HTTP client error code in words, naming `who` failed: the spec keeps raw internal
 * error strings (ECONNREFUSED, addresses) out of 5xx answers; callers log the code beside it.
 */
export function describeNetworkError(code: string, who = 'the paired network'): string {
  if (code === 'ECONNREFUSED') return `${who} refused the connection`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return `${who}'s host name could not be resolved`;
  if (/TIMEOUT|ETIMEDOUT/.test(code)) return `${who} did not answer in time`;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED')
    return `the connection to ${who} was cut`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN' || code === 'ENETDOWN')
    return `${who} is unreachable from this machine (no network route)`;
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `${who}'s TLS certificate was not accepted`;
  return `${who} could not be reached`;
}

/** The methods a pairing sends: reads, relayed messages (POST) and relayed events (PUT, PATCH, DELETE: network/relayed-event.ts). */
export type PairMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface PairTransport {
  readonly kind: 'direct' | 'relay';
  /** Sends one HTTP request to the peer, authenticated with the pairing token. Throws TransportError. */
  request(method: PairMethod, path: string, body?: unknown): Promise<PairResponse>;
  /**
   * POSTs raw bytes (a file a relayed message carries, #41 part 6) with their Content-Type; only
   * a direct pairing has it (the relay's frames carry JSON).
   */
  upload?(path: string, bytes: Buffer, contentType: string): Promise<PairResponse>;
  /**
   * GETs `path` and gives the answer's body as it arrives (a file of the peer, peer-files.ts); only
   * a direct pairing has it (over a relay the file comes in JSON chunks).
   */
  stream?(path: string): Promise<{ status: number; body: Readable }>;
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

  request(method: PairMethod, path: string, body?: unknown): Promise<PairResponse> {
    return this.send(method, path, body === undefined ? undefined : JSON.stringify(body), 'application/json');
  }

  upload(path: string, bytes: Buffer, contentType: string): Promise<PairResponse> {
    return this.send('POST', path, bytes, contentType);
  }

  private async send(method: PairMethod, path: string, body: string | Buffer | undefined, contentType: string): Promise<PairResponse> {
    const res = await this.open(method, path, body, contentType);
    try {
      return { status: res.status, body: parseBody(await res.body.text()) };
    } catch (err) {
      throw this.failure(err);
    }
  }

  async stream(path: string): Promise<{ status: number; body: Readable }> {
    const res = await this.open('GET', path, undefined, 'application/octet-stream');
    return { status: res.status, body: res.body };
  }

  /** Sends a request; its answer's body is the caller's to read. */
  private async open(
    method: PairMethod,
    path: string,
    body: string | Buffer | undefined,
    contentType: string,
  ): Promise<{ status: number; body: Readable & { text(): Promise<string> } }> {
    if (this.closed) throw new TransportError('closed', 'the pairing is closing');
    const url = this.baseUrl.replace(/\/+$/, '') + path;
    const { Agent: UndiciAgent, request } = await import('undici');
    this.agent ??= new UndiciAgent({ connections: 4, keepAliveTimeout: 10_000, connect: { timeout: 5_000 } });
    try {
      const res = await request(url, {
        method,
        dispatcher: this.agent,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': contentType } : {}),
        },
        ...(body !== undefined ? { body } : {}),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      return { status: res.statusCode, body: res.body };
    } catch (err) {
      throw this.failure(err);
    }
  }

  private failure(err: unknown): TransportError {
    const code = (err as { code?: string }).code ?? '';
    // undici error messages name the address, never the headers: safe for the log.
    const detail = `${displayUrl(this.baseUrl)}: ${code || (err as Error).message}`;
    if (/TIMEOUT/.test(code))
      return new TransportError('timeout', `the paired network did not answer in time (${Math.round(this.timeoutMs / 1000)} s)`, detail);
    return new TransportError('unreachable', describeNetworkError(code), detail);
  }

  async close(): Promise<void> {
    this.closed = true;
    // destroy, not close: close would wait for a request the remote may never answer.
    await this.agent?.destroy().catch(() => {});
  }
}
