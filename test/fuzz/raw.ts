// A raw HTTP/1.1 exchange over a TCP socket: the fuzz suites need to send bytes no HTTP client
// would (bad paths, lying lengths, invalid UTF-8, header abuse) and to see exactly what comes back.

import net from 'node:net';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../../src/errors.js';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The connection closed (or was cut) without a response. */
  noResponse?: boolean;
}

export class Hang extends Error {}

/** Builds request bytes from parts; `body` is sent as given, content-length added unless `headers` has one. */
export function requestBytes(method: string, target: string, headers: [string, string][], body?: Buffer): Buffer {
  const hs = [...headers];
  if (body !== undefined && !hs.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k)))
    hs.push(['content-length', String(body.length)]);
  if (!hs.some(([k]) => k.toLowerCase() === 'connection')) hs.push(['connection', 'close']);
  const head = `${method} ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\n${hs.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body ?? Buffer.alloc(0)]);
}

/** Decodes a chunked body (best effort: enough for our own server's answers). */
function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const nl = buf.indexOf('\r\n', pos);
    if (nl < 0) break;
    const size = parseInt(buf.subarray(pos, nl).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(buf.subarray(nl + 2, nl + 2 + size));
    pos = nl + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * Sends `bytes` and reads one response. Streams (SSE) are cut after their headers. Throws Hang
 * when nothing complete arrives within `ms`.
 */
export function exchange(port: number, bytes: Buffer, ms = 10_000): Promise<RawAnswer> {
  // A HEAD answer carries a content-length but no body.
  const head = bytes.subarray(0, 5).toString('latin1') === 'HEAD ';
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Hang(`no complete response in ${ms} ms`))), ms);
    const parse = (final: boolean): RawAnswer | undefined => {
      const buf = Buffer.concat(chunks);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return final ? { status: 0, headers: {}, body: buf, noResponse: true } : undefined;
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const rest = buf.subarray(end + 4);
      if (head || (headers['content-type'] ?? '').startsWith('text/event-stream')) return { status, headers, body: rest };
      const len = headers['content-length'];
      if (len !== undefined)
        return rest.length >= Number(len) || final ? { status, headers, body: rest.subarray(0, Number(len)) } : undefined;
      if (headers['transfer-encoding'] === 'chunked') {
        return rest.includes('\r\n0\r\n\r\n') || rest.subarray(0, 5).toString() === '0\r\n\r\n' || final
          ? { status, headers, body: dechunk(rest) }
          : undefined;
      }
      return final ? { status, headers, body: rest } : undefined;
    };
    sock.on('data', (d: Buffer) => {
      chunks.push(d);
      const a = parse(false);
      if (a) finish(() => resolve(a));
    });
    sock.on('end', () => finish(() => resolve(parse(true)!)));
    sock.on('error', () => finish(() => resolve(parse(true) ?? { status: 0, headers: {}, body: Buffer.alloc(0), noResponse: true })));
    // Not end(): Node's server drops a request whose client half-closes before the answer is ready.
    sock.on('connect', () => sock.write(bytes));
  });
}

/** Paths whose bodies are not JSON (documents, console pages, metrics, SSE). */
export const NON_JSON = /^\/(console|install\.md|skill\.md|llms\.txt|metrics|v1\/events\/stream)(\/|$|\?)/;

/**
 * The invariant every answer keeps: a status below 500, and for an error on a JSON route the
 * documented envelope whose code matches its status.
 */
export function assertWellFormed(a: RawAnswer, what: string): void {
  assert.ok(!a.noResponse, `${what}: the connection closed without a response`);
  assert.ok(a.status >= 200 && a.status < 500, `${what}: status ${a.status}: ${a.body.toString('utf8').slice(0, 300)}`);
  // A HEAD answer has no body to check.
  if (a.status < 400 || what.startsWith('HEAD ')) return;
  const type = a.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) {
    assert.ok(NON_JSON.test(pathOf(what)), `${what}: error ${a.status} is not JSON (${type}): ${a.body.toString('utf8').slice(0, 200)}`);
    return;
  }
  let body: { error?: unknown; code?: unknown; request_id?: unknown };
  try {
    body = JSON.parse(a.body.toString('utf8'));
  } catch {
    throw new Error(`${what}: error body is not JSON: ${a.body.toString('utf8').slice(0, 200)}`);
  }
  assert.type(body.error, 'string', `${what}: envelope without error`);
  assert.type(body.code, 'string', `${what}: envelope without code`);
  const entry = (CATALOGUE as Record<string, { status: number }>)[body.code as string];
  assert.ok(entry, `${what}: code ${String(body.code)} is not in the catalogue`);
  assert.is(entry!.status, a.status, `${what}: code ${String(body.code)} answered with status ${a.status}`);
  assert.not.match(String(body.error), /\bat .*\.(js|ts):\d+/, `${what}: error leaks a stack trace`);
}

/** `METHOD /path` -> `/path` (for messages that start with the method). */
function pathOf(what: string): string {
  return what.split(' ')[1] ?? '';
}
