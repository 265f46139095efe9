// One outbound POST of JSON: a bounded time from connect to the end of the answer, to an address
// judged when the socket connects by the guard every outbound request uses (outbound.ts): a
// loopback or private address is refused unless the caller allows it, so DNS cannot turn a
// public-looking URL into a request inside.

import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalRefusal, type Resolve } from './outbound.js';

export interface PostResult {
  ok: boolean;
  /** The target's HTTP status, when it answered. */
  status?: number;
  /** Why the attempt failed (network, timeout, refused address, non-2xx). */
  error?: string;
}

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** How names are resolved (the system's resolver unless a test gives one). */
  resolve?: Resolve;
}

/** Bytes of an answer read before the rest is dropped (the status is what counts). */
const MAX_ANSWER = 64 * 1024;

/** POSTs `body` with `headers` (the caller names itself in `user-agent`); resolves (never rejects) with what happened. */
export function postJson(url: string, headers: Record<string, string>, body: string, o: PostOptions): Promise<PostResult> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return resolve({ ok: false, error: 'invalid URL' });
    }
    // An IP literal is never looked up: check it here.
    const allowPrivate = () => o.allowPrivate;
    const literal = literalRefusal(u.hostname, allowPrivate);
    if (literal) return resolve({ ok: false, error: `refused: ${literal} (allow_private_network is off)` });
    const lib = u.protocol === 'https:' ? https : http;
    let settled = false;
    const done = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = lib.request(
      u,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        lookup: guardedLookup(allowPrivate, o.resolve),
        agent: false,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER) res.destroy();
        });
        const status = res.statusCode ?? 0;
        const finish = () =>
          done(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `the target answered ${status}` });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ ok: false, error: `no answer within ${o.timeoutMs} ms` });
    }, o.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      done({ ok: false, error: err.code === 'EPRIVATE' ? `refused: ${err.message} (allow_private_network is off)` : err.message });
    });
    req.end(body);
  });
}
