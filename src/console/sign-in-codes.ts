// One-time console sign-in links. An admin (the CLI's `svc console`, with the operator token in
// its Authorization header) asks for a code; the link `/console/sign-in?code=C` opens a session
// for that token once, then the code is gone. The long-lived token never travels in a URL: only a
// random code that works once and for at most a few minutes does (browser history, proxy logs).

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';
import { bearerOf } from '../auth/principal.js';
import type { Route } from '../http/router.js';
import { baseUrlOf } from '../discovery/base-url.js';
import { cameOverHttps, parseCookies, sessionCookie, SESSION_COOKIE } from './cookies.js';
import { redirectBody, usedLinkPage } from './pages.js';
import { HTML, sendPage } from './respond.js';
import type { SessionStore } from './sessions.js';

export const SIGN_IN_PATH = '/console/sign-in';
const DEFAULT_TTL_S = 120;
const CODE = /^[A-Za-z0-9_-]{43}$/;

interface Pending {
  token: string;
  expires: number;
}

/** Codes waiting for their one use. Pure state with an injectable clock. */
export class SignInCodes {
  private readonly codes = new Map<string, Pending>();
  constructor(
    private readonly now: () => number = Date.now,
    private readonly max = 1000,
  ) {}

  /** A new code for `token`, valid for `ttlMs`. */
  create(token: string, ttlMs: number): { code: string; expires: number } {
    this.sweep();
    const code = randomBytes(32).toString('base64url');
    const expires = this.now() + ttlMs;
    this.codes.set(code, { token, expires });
    while (this.codes.size > this.max) this.codes.delete(this.codes.keys().next().value!);
    return { code, expires };
  }

  /** The token of a live code, which is used up by this call; undefined for unknown, used or expired codes. */
  consume(code: string | null): string | undefined {
    if (code === null || !CODE.test(code)) return undefined;
    const p = this.codes.get(code);
    if (!p) return undefined;
    this.codes.delete(code);
    return p.expires > this.now() ? p.token : undefined;
  }

  private sweep(): void {
    const t = this.now();
    for (const [code, p] of this.codes) if (p.expires <= t) this.codes.delete(code);
  }

  clear(): void {
    this.codes.clear();
  }
}

export interface SignInDeps {
  codes: SignInCodes;
  sessions: SessionStore;
  address: () => { host: string; port: number } | undefined;
  /** Counts a refused sign-in code against the caller's address; throws AppError (429) past the limit. */
  failed?: (req: IncomingMessage) => void;
}

/** POST /console/api/sign-in-codes (admin) and GET /console/sign-in?code=C. */
export function signInCodeRoutes(deps: SignInDeps): Route[] {
  const baseOf = (req: IncomingMessage) => baseUrlOf(req.headers, cameOverHttps(req), deps.address() ?? { host: '127.0.0.1', port: 0 });
  return [
    {
      method: 'POST',
      path: '/console/api/sign-in-codes',
      action: 'admin',
      schema: 'console-sign-in',
      handler: ({ req, body, principal }) => {
        // The session re-authenticates this token on every request, so it must be the caller's own
        // bearer token (auth.mode none has none: the session then needs no token at all).
        const token = bearerOf(req.headers.authorization).token ?? '';
        if (token === '' && principal.kind !== 'trusted')
          throw new AppError(
            'bad_request',
            'send the admin token in the Authorization header (a console session cannot issue sign-in links)',
          );
        const ttl = ((body as { ttl_seconds?: number }).ttl_seconds ?? DEFAULT_TTL_S) * 1000;
        const { code, expires } = deps.codes.create(token, ttl);
        return {
          status: 201,
          body: { url: `${baseOf(req)}${SIGN_IN_PATH}?code=${code}`, expires_at: new Date(expires).toISOString() },
          headers: { 'cache-control': 'no-store' },
        };
      },
    },
    {
      method: 'GET',
      path: SIGN_IN_PATH,
      raw: true,
      handler: ({ req, res, url }) => {
        const headers = { 'cache-control': 'no-store', 'content-type': HTML, 'referrer-policy': 'no-referrer' };
        // A HEAD (a link preview, a checker) must not use up the one sign-in.
        if (req.method === 'HEAD') return sendPage(req, res, 200, '', headers);
        const token = deps.codes.consume(url.searchParams.get('code'));
        if (token === undefined) {
          // Guessing codes is guessing credentials: limited per address like bad bearer tokens.
          deps.failed?.(req);
          return sendPage(req, res, 401, usedLinkPage(), headers);
        }
        const location = '/console/';
        if (token === '') return sendPage(req, res, 303, redirectBody(location), { ...headers, location });
        deps.sessions.close(parseCookies(req.headers.cookie).get(SESSION_COOKIE));
        const id = deps.sessions.open(token);
        sendPage(req, res, 303, redirectBody(location), { ...headers, location, 'set-cookie': sessionCookie(id, cameOverHttps(req)) });
      },
    },
  ];
}
