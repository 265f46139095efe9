// Request bodies: at most 1 MiB, exactly one JSON object.

import type { IncomingMessage } from 'node:http';
import { AppError, badRequest } from '../errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 128;

/** The deepest bracket nesting of JSON text, ignoring brackets inside strings (no full parse). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
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
  // Deeper values parse, but every later JSON.stringify (store, events) would overflow the stack.
  // The depth of a parsed value is the nesting of its text, and far cheaper to find; a text
  // that does not parse is scanned, so the deeper-than error still wins over the syntax error.
  const tooDeep = () => badRequest(`body: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (nestingDepth(text) > MAX_JSON_DEPTH) throw tooDeep();
    throw badRequest(`body: is not valid JSON (${(err as Error).message.replace(/\s+/g, ' ').slice(0, 120)})`);
  }
  if (deeperThan(value, MAX_JSON_DEPTH)) throw tooDeep();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('body: must be exactly one JSON object');
  return value as Record<string, unknown>;
}

/** Whether a parsed JSON value nests arrays and objects more than `limit` levels (stops as soon as it does). */
function deeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (deeperThan(v, limit - 1)) return true;
  } else {
    for (const k in value) if (deeperThan((value as Record<string, unknown>)[k], limit - 1)) return true;
  }
  return false;
}
