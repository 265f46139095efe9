// Request bodies: at most 1 MiB, exactly one JSON object.

import type { IncomingMessage } from 'node:http';
import { AppError, badRequest } from '../errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new AppError('payload_too_large', `request body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new AppError('payload_too_large', `request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses exactly one JSON object (unknown fields are kept for the schema to ignore). */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) throw badRequest('body: a JSON object is required');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw badRequest('body: is not valid UTF-8');
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
