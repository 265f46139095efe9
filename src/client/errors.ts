// Client errors: every failure of a call becomes one readable line that names the status, the
// code and what to do next. The CLI prints `message` as is; `--debug` adds the cause.

import type { ErrorBody } from '../protocol/types.js';

/** Codes for failures that never reached an svc error envelope. */
export type TransportCode = 'unreachable' | 'timeout' | 'bad_response' | 'network_error';

export class ClientError extends Error {
  constructor(
    message: string,
    /** HTTP status, absent when no response arrived. */
    readonly status: number | undefined,
    /** The server's error code, or a TransportCode. */
    readonly code: string,
    readonly requestId?: string,
    options?: { cause?: unknown; detail?: string },
  ) {
    super(message, options);
    this.name = 'ClientError';
    if (options?.detail !== undefined) this.detail = options.detail;
  }
  /** The server's own error text (without status, code and hint), when it answered with an envelope. */
  readonly detail?: string;
}

export interface CallContext {
  method: string;
  /** Path with query, e.g. `/v1/rooms?limit=10`. */
  path: string;
  baseUrl: string;
  hasToken: boolean;
  /** How to start the server, for the connection-refused message (default `svc serve`). */
  start?: string;
}

/** What an operator should do about an error response; undefined when the message says it all. */
export function hintFor(status: number, code: string, message: string, ctx: CallContext): string | undefined {
  switch (status) {
    case 401:
      return ctx.hasToken
        ? 'the token was rejected: check --token / SVC_TOKEN against auth.tokens in the server config'
        : 'this needs a token: pass --token or set SVC_TOKEN';
    case 403:
      return 'use a token with the scope this needs (--token / SVC_TOKEN), or change the server config';
    case 404: {
      if (code !== 'not_found') return undefined;
      const kind = /^\/v1\/(rooms|agents)\/[^/]+$/.exec(ctx.path.split('?')[0]!)?.[1];
      if (message.startsWith('no route')) return `is ${ctx.baseUrl} an svc server of this version? (svc doctor)`;
      return kind ? `check the id (svc ${kind} list)` : undefined;
    }
    case 405:
      return `is ${ctx.baseUrl} an svc server of the same version? (svc doctor)`;
    case 409:
      // A reserved id's refusal says itself who may register it (src/auth/agent-claims.ts); an edit or
      // delete's says the message was deleted or edited meanwhile (and its version): no id to pick.
      if (code === 'agent_reserved' || /^\/v1\/messages\/[^/]+$/.test(ctx.path.split('?')[0]!)) return undefined;
      return 'pick another id, or remove the existing one first';
    case 413:
      // An upload's limit is the server's server.limits.file_bytes, not the JSON body's.
      if (ctx.path.startsWith('/v1/files')) return "the file is larger than the server's server.limits.file_bytes";
      return 'send less: a request body is at most 1 MiB';
    case 422:
      return undefined;
    case 429:
      return 'slow down and retry in a moment';
    case 502:
      return 'a paired network did not answer; run svc doctor';
    case 503:
      return 'retry in a few seconds';
    case 507:
      return "the server's disk is full: free space there and retry";
    default:
      return status >= 500 ? "see the server's log for this request" : undefined;
  }
}

/** The ClientError of a non-2xx response; `body` is the raw text. */
export function responseError(status: number, text: string, ctx: CallContext, headerRequestId?: string): ClientError {
  const parsed = parseEnvelope(text);
  if (!parsed) {
    const what = text.trim() === '' ? 'an empty body' : 'a body that is not an svc error';
    return new ClientError(
      `${ctx.method} ${ctx.path}: HTTP ${status} with ${what}: is ${ctx.baseUrl} an svc server? (check --url / SVC_URL)`,
      status,
      'bad_response',
      headerRequestId,
    );
  }
  const requestId = parsed.request_id ?? headerRequestId;
  const hint = hintFor(status, parsed.code, parsed.error, ctx);
  const reqNote = status >= 500 && requestId ? ` (request ${requestId})` : '';
  const line = `${status} ${parsed.code}: ${parsed.error}${reqNote}${hint ? `; ${hint}` : ''}`;
  return new ClientError(line, status, parsed.code, requestId, { detail: parsed.error });
}

function parseEnvelope(text: string): ErrorBody | undefined {
  try {
    const v = JSON.parse(text) as Partial<ErrorBody> | null;
    if (v && typeof v === 'object' && typeof v.error === 'string' && typeof v.code === 'string') return v as ErrorBody;
  } catch {
    // not JSON: handled by the caller
  }
  return undefined;
}

/** The ClientError of a request that got no response (refused, unresolvable, timed out, reset). */
export function transportError(err: unknown, ctx: CallContext): ClientError {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e.code ?? e.cause?.code ?? '';
  const url = ctx.baseUrl;
  const start = `start it with \`${ctx.start ?? 'svc serve'}\`, or point --url / SVC_URL at a running server`;
  if (code === 'ECONNREFUSED') {
    return new ClientError(`no svc server is running at ${url} (connection refused); ${start}`, undefined, 'unreachable', undefined, {
      cause: err,
    });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ClientError(`cannot resolve the host of ${url} (${code}); check --url / SVC_URL`, undefined, 'unreachable', undefined, {
      cause: err,
    });
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return new ClientError(`cannot reach ${url} (${code}); check --url / SVC_URL and the network`, undefined, 'unreachable', undefined, {
      cause: err,
    });
  }
  if (/TIMEOUT/.test(code) || e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new ClientError(
      `${ctx.method} ${ctx.path}: no answer from ${url} in time (${code || e.name}); is the server overloaded, or --url wrong?`,
      undefined,
      'timeout',
      undefined,
      { cause: err },
    );
  }
  const detail = code || e.message || String(err);
  return new ClientError(
    `${ctx.method} ${ctx.path}: the connection to ${url} failed (${detail}); is it an svc server? (svc doctor)`,
    undefined,
    'network_error',
    undefined,
    { cause: err },
  );
}
