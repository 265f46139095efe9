// One delivery attempt: a POST with a bounded time from connect to the end of the answer, to an
// address checked after DNS (a name that resolves to loopback or a private address is refused
// unless the webhook allows it, so DNS cannot turn a public-looking URL into a request inside).

import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress, privateHostRefusal } from '../protocol/private-address.js';

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
}

/** Bytes of an answer read before the rest is dropped (the status is what counts). */
const MAX_ANSWER = 64 * 1024;

/** A lookup that refuses private addresses: every address DNS gives must be public. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad) {
        const e = Object.assign(new Error(`${hostname} resolves to ${bad.address}, a loopback, private or reserved address`), {
          code: 'EPRIVATE',
        });
        return callback(e, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** POSTs `body` with `headers`; resolves (never rejects) with what happened. */
export function postJson(url: string, headers: Record<string, string>, body: string, o: PostOptions): Promise<PostResult> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return resolve({ ok: false, error: 'invalid URL' });
    }
    // An IP literal is never looked up: check it here.
    const literal = privateHostRefusal(u.hostname);
    if (literal && !o.allowPrivate) return resolve({ ok: false, error: `refused: ${literal} (allow_private_network is off)` });
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
          'user-agent': 'svc-webhooks',
          ...headers,
        },
        lookup: guardedLookup(o.allowPrivate),
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
