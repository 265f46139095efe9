// The one edge every request body passes (server.ts calls readRouteBody before any handler runs):
// a route declares the body it takes (router.ts `body`, or `schema` for one JSON object) and gets
// it read and checked here: size (from Content-Length at once, then counted while reading), a time
// bound for slow senders, UTF-8, nesting depth before parsing, and text no backend can store.
// No route, feature or mounted library reads a request stream itself.

import type { IncomingMessage } from 'node:http';
import type { AppError } from '../errors.js';
import { BodyError } from './body-error.js';
import { BodyStream } from './body-stream.js';

export { BodyError };

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 128;
/** Bytes a route that takes no body still accepts (and drops): an empty `{}` from a generic client. */
export const NO_BODY_LIMIT = 64 * 1024;
/** Seconds a body may take to arrive (config `server.limits.body_seconds`). */
export const BODY_SECONDS = 30;

/** The body a route takes. */
export interface BodySpec {
  /**
   * `json`: one JSON value, checked and parsed (an object when the route has a schema);
   * `form`: `application/x-www-form-urlencoded`, as URLSearchParams; `typed`: one JSON object,
   * checked and parsed, when the Content-Type says JSON, else the bytes, checked as a form (a
   * mounted library that takes both and judges the type itself: the OAuth provider). `stream`:
   * the bytes as they arrive (a BodyStream: an upload), never held whole; the limit is enforced
   * as they pass, and `server.limits.body_seconds` bounds a stall (no byte for that long), not the
   * whole transfer.
   */
  kind: 'json' | 'form' | 'typed' | 'stream';
  /** Most bytes; MAX_BODY_BYTES when absent. A function is asked per request (a limit from the current config, or by Content-Type). */
  limit?: number | ((req: IncomingMessage) => number);
  /** An empty body is allowed: the handler gets `undefined` (a `json` route's schema is not checked). */
  optional?: boolean;
  /**
   * How a refused body is answered, for a route whose protocol has its own error shape (JSON-RPC
   * on /v1/mcp, OAuth's `{error, error_description}`); svc's envelope when absent.
   */
  refusal?: (err: AppError) => { status: number; body: unknown };
}

const syntax = (msg: string) => new BodyError('bad_request', msg, 'syntax');
const content = (msg: string) => new BodyError('bad_request', msg, 'content');

/** What the edge hands the handler: the parsed value and the bytes it came from. */
export interface EdgeBody {
  value: unknown;
  bytes: Buffer | undefined;
}

const NONE: EdgeBody = { value: undefined, bytes: undefined };

/** Whether the request carries a body (a length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Reads and checks the body `spec` declares (absent: the route takes none, and what comes is
 * dropped up to NO_BODY_LIMIT). `schemaObject`: the route validates a schema, so JSON must be one
 * object. Refusals are AppErrors the server answers at once (then drains, bounded).
 */
export async function readRouteBody(
  req: IncomingMessage,
  spec: BodySpec | undefined,
  schemaObject: boolean,
  seconds = BODY_SECONDS,
): Promise<EdgeBody> {
  if (!spec) {
    if (hasBody(req)) await readBody(req, NO_BODY_LIMIT, seconds, 'this route takes no request body; at most');
    return NONE;
  }
  const limit = typeof spec.limit === 'function' ? spec.limit(req) : (spec.limit ?? MAX_BODY_BYTES);
  if (spec.kind === 'stream') return { value: streamBody(req, limit, seconds), bytes: undefined };
  const bytes = hasBody(req) ? await readBody(req, limit, seconds) : Buffer.alloc(0);
  if (bytes.length === 0 && spec.optional) return NONE;
  switch (spec.kind) {
    case 'form':
      refuseFormNul(bytes);
      return { value: new URLSearchParams(decodeUtf8(bytes)), bytes };
    case 'typed':
      if (isJsonType(req)) return { value: parseJson(bytes, true), bytes };
      refuseFormNul(bytes);
      return { value: bytes, bytes };
    case 'json':
      return { value: parseJson(bytes, schemaObject), bytes };
  }
}

/** A streamed body: refused at once when its declared length passes `limit`, else counted as it passes. */
function streamBody(req: IncomingMessage, limit: number, idleSeconds: number): BodyStream {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new BodyError('payload_too_large', `request body is larger than ${limit} bytes`, 'size');
  return new BodyStream(req, limit, idleSeconds);
}

const isJsonType = (req: IncomingMessage): boolean => /^application\/(?:[\w.+-]+\+)?json\b/i.test(req.headers['content-type'] ?? '');

/**
 * The whole body, refused with 413 past `limit` bytes (declared: at once, without waiting for
 * any of it; received: as soon as the count passes it) and with 408 when it takes longer than
 * `seconds`. What is left of a refused body is the server's to drain (server.ts).
 */
export function readBody(
  req: IncomingMessage,
  limit = MAX_BODY_BYTES,
  seconds = BODY_SECONDS,
  what = 'request body is larger than',
): Promise<Buffer> {
  const tooLarge = () => new BodyError('payload_too_large', `${what} ${limit} bytes`, 'size');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  // Plain listeners rather than `for await`: the async iterator costs more than the rest of the
  // read for the small bodies that make up nearly every request.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | undefined) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => done(undefined);
    const onError = (err: Error) => done(err);
    const onClose = () => done(new Error('the request was aborted before its body ended'));
    // A sender that trickles holds a connection and up to `limit` bytes: the read has a deadline.
    const timer = setTimeout(
      () =>
        done(new BodyError('request_timeout', `the request body did not arrive within ${seconds} s (server.limits.body_seconds)`, 'time')),
      seconds * 1000,
    );
    timer.unref();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * One linear scan of JSON text's bytes (brackets inside strings ignored, escapes honoured):
 * `deep` at the first level past `limit` (it stops there), else `nul` when a string or key holds
 * the escape `\u0000`, the only way JSON text holds a NUL (a raw one is not valid JSON).
 */
export function scanJson(bytes: Uint8Array, limit: number): 'deep' | 'nul' | undefined {
  // Every byte this looks at is ASCII, which UTF-8 never uses inside a multi-byte character,
  // so the raw bytes can be scanned before (and instead of) decoding.
  let depth = 0;
  let inString = false;
  let nul = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c) {
        // A backslash: the NUL check rides on the escapes, so bodies without one pay nothing more.
        if (bytes[i + 1] === 0x75 && bytes[i + 2] === 0x30 && bytes[i + 3] === 0x30 && bytes[i + 4] === 0x30 && bytes[i + 5] === 0x30)
          nul = true;
        i++; // skip the escaped character
      } else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return 'deep';
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return nul ? 'nul' : undefined;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(raw: Buffer): string {
  try {
    return UTF8.decode(raw);
  } catch {
    throw syntax('body: is not valid UTF-8');
  }
}

/**
 * Parses one JSON value (exactly one object when `object`; unknown fields are kept for the schema
 * to ignore), under the depth bound and without NUL characters.
 */
export function parseJson(raw: Buffer, object: boolean): unknown {
  if (raw.length === 0) throw syntax(object ? 'body: a JSON object is required' : 'body: a JSON value is required');
  const text = decodeUtf8(raw);
  // Deeper values parse, but every later JSON.stringify (store, events) would overflow the stack,
  // and parsing a hostile half-million-level body first stalls the event loop for most of a
  // second: the nesting of the text (which is the depth of the value) is checked before parsing,
  // so the deeper-than error also wins over a syntax error.
  const found = scanJson(raw, MAX_JSON_DEPTH);
  if (found === 'deep') throw content(`body: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw syntax(`body: is not valid JSON (${(err as Error).message.replace(/\s+/g, ' ').slice(0, 120)})`);
  }
  if (object && (value === null || typeof value !== 'object' || Array.isArray(value)))
    throw content('body: must be exactly one JSON object');
  // PostgreSQL stores no NUL in text, so one backend would fail where another stored it: no
  // backend gets one. Only a body whose text has the escape is walked to name the field.
  if (found === 'nul') {
    const at = nulPath(value, 'body');
    if (at !== undefined) throw content(`${at}: contains a NUL character (U+0000), which cannot be stored`);
  }
  return value;
}

/**
 * Refuses a form whose names or values hold a NUL (`%00`, or a raw one), as parseJson refuses one
 * in JSON: a form's fields reach the store too (the consent's new agent name, OAuth codes and
 * client ids looked up by key). Only a body with either byte sequence is decoded for it.
 */
function refuseFormNul(bytes: Buffer): void {
  if (!bytes.includes('%00') && !bytes.includes(0)) return;
  for (const [k, v] of new URLSearchParams(bytes.toString('utf8'))) {
    if (k.includes('\0') || v.includes('\0'))
      throw content(`body.${k.replace(/\0/g, '\\u0000')}: contains a NUL character (U+0000), which cannot be stored`);
  }
}

/** The path of the first string (or key) holding a NUL character, if any. */
function nulPath(v: unknown, at: string): string | undefined {
  if (typeof v === 'string') return v.includes('\0') ? at : undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = nulPath(v[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [k, x] of Object.entries(v)) {
    if (k.includes('\0')) return `${at}.${k.replace(/\0/g, '\\u0000')}`;
    const found = nulPath(x, `${at}.${k}`);
    if (found) return found;
  }
  return undefined;
}
