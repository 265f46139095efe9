// The only place that writes JSON responses and error envelopes.

import { STATUS_CODES, type ServerResponse } from 'node:http';
import { AppError, CATALOGUE } from '../errors.js';
import { StoreError } from '../store/types.js';
import { UnknownCursor } from '../protocol/pagination.js';
import type { ErrorBody } from '../protocol/types.js';

/**
 * Writes one JSON answer. `endWhen`: the whole answer is written now, but the response is ended
 * (and with it the connection closed or freed for the next request) only when `endWhen` says so.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  endWhen?: (end: () => void) => void,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  if (!endWhen) return void res.end(text);
  res.write(text);
  endWhen(() => res.end());
}

/** Resolves when the response can take more, or is gone. */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** What the streamed writer gathers before writing: a page smaller than this goes out whole. */
const STREAM_PIECE_CHARS = 64 * 1024;

/**
 * Writes a JSON object body as it is made: each element of a top-level array is stringified on
 * its own, and the text goes out in pieces of about 64 KiB (chunked), waiting for the socket to
 * drain whenever its buffer is full. A body that stays under one piece is sent whole with its
 * length, as sendJson does. The text is sendJson's; a reader that went away stops the writing.
 */
export async function sendJsonStreamed(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<void> {
  const head = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers };
  let pending: string[] = [];
  let size = 0;
  let streaming = false;
  const push = async (text: string) => {
    pending.push(text);
    size += text.length;
    if (size < STREAM_PIECE_CHARS) return;
    if (!streaming) res.writeHead(status, head);
    streaming = true;
    const piece = pending.join('');
    pending = [];
    size = 0;
    if (!res.write(piece) && !res.destroyed) await writable(res);
  };
  let first = true;
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (res.destroyed) return;
    const name = `${first ? '{' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!Array.isArray(value)) {
      await push(`${name}${JSON.stringify(value)}`);
      continue;
    }
    await push(`${name}[`);
    for (let i = 0; i < value.length && !res.destroyed; i++) await push(`${i ? ',' : ''}${JSON.stringify(value[i]) ?? 'null'}`);
    await push(']');
  }
  if (res.destroyed) return;
  pending.push(first ? '{}' : '}');
  const rest = pending.join('');
  if (!streaming) res.writeHead(status, { ...head, 'content-length': Buffer.byteLength(rest) });
  res.end(rest);
}

/** Maps anything thrown to a catalogue error; unknown errors become a sanitized 500. */
export function toAppError(err: unknown): { error: AppError; internal: boolean } {
  if (err instanceof AppError) return { error: err, internal: false };
  if (err instanceof UnknownCursor)
    return { error: new AppError('unprocessable_entity', `${err.message}: not an item of this list`), internal: false };
  if (err instanceof StoreError) {
    if (err.code === 'unknown_cursor')
      return { error: new AppError('unprocessable_entity', `${err.message}: not an item of this list`), internal: false };
    // Refused intents the network rules did not word themselves (they usually do).
    if (err.code === 'not_found') return { error: new AppError('not_found', `${err.message} was not found`), internal: false };
    if (err.code === 'room_exists' || err.code === 'agent_taken' || err.code === 'thread_room')
      return { error: new AppError('conflict', err.message), internal: false };
    // Logged by the store's WriteHealth, once per minute at most: a full disk refuses every write.
    if (err.code === 'unavailable')
      return {
        error: new AppError('service_unavailable', 'the store cannot accept writes right now; nothing was saved; retry later', {
          'retry-after': '5',
        }),
        internal: false,
      };
    if (err.code === 'conflict') return { error: new AppError('conflict', 'the write conflicts with stored data; retry'), internal: false };
  }
  return { error: new AppError('internal_error', CATALOGUE.internal_error.message), internal: true };
}

export function sendError(res: ServerResponse, err: AppError, requestId?: string, endWhen?: (end: () => void) => void): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body: ErrorBody = { error: err.message, code: err.code, ...(requestId ? { request_id: requestId } : {}) };
  sendJson(res, err.status, body, err.headers, endWhen);
}

/**
 * The whole HTTP/1.1 response for a connection the HTTP parser gave up on (the server's
 * clientError): no request reached a route, so it is written straight to the socket.
 */
export function clientErrorResponse(parserCode: string | undefined): string {
  const message =
    parserCode === 'HPE_HEADER_OVERFLOW'
      ? 'the request headers are too large'
      : parserCode === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request did not arrive in time'
        : 'the request is not valid HTTP/1.1';
  const body = JSON.stringify({ error: message, code: 'bad_request' } satisfies ErrorBody);
  return (
    `HTTP/1.1 400 ${STATUS_CODES[400]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`
  );
}
