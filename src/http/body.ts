// Request bodies: at most 1 MiB, exactly one JSON object.

import type { IncomingMessage } from 'node:http';
import { AppError, badRequest } from '../errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, by one linear scan of its bytes
 * (brackets inside strings ignored, escapes honoured); stops at the first level past the limit.
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  // Every byte this looks at is ASCII, which UTF-8 never uses inside a multi-byte character,
  // so the raw bytes can be scanned before (and instead of) decoding.
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The whole body, refused with 413 past `limit` bytes (declared or received). */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = () => new AppError('payload_too_large', `request body is larger than ${limit} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  // Plain listeners rather than `for await`: the async iterator costs more than the rest of the
  // read for the small bodies that make up nearly every request.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      // The rest is drained by the caller after it answers 413.
      if (size > limit) done(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => done(undefined);
    const onError = (err: Error) => done(err);
    const onClose = () => done(new Error('the request was aborted before its body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Parses exactly one JSON object (unknown fields are kept for the schema to ignore). */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) throw badRequest('body: a JSON object is required');
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw badRequest('body: is not valid UTF-8');
  }
  // Deeper values parse, but every later JSON.stringify (store, events) would overflow the stack,
  // and parsing a hostile half-million-level body first stalls the event loop for most of a
  // second: the nesting of the text (which is the depth of the value) is checked before parsing,
  // so the deeper-than error also wins over a syntax error.
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw badRequest(`body: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`body: is not valid JSON (${(err as Error).message.replace(/\s+/g, ' ').slice(0, 120)})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('body: must be exactly one JSON object');
  return value as Record<string, unknown>;
}
