// The console's routes: /console/ (bootstrap, sign-in page or the app shell), its static files,
// and two small JSON helpers the app needs beyond /v1 (its session, live presence).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, notFound } from '../errors.js';
import { authorize } from '../auth/policy.js';
import { principalForToken, type Authenticator, type Principal } from '../auth/principal.js';
import { canSeeListedAgent, canSeeRoom, roomsOfLocalAgents, viewerOf } from '../auth/visibility.js';
import { canSendHuman } from '../network/document.js';
import type { NetworkContext } from '../network/context.js';
import type { Route } from '../http/router.js';
import { baseUrlOf } from '../discovery/base-url.js';
import { etagMatches, loadAsset } from './assets.js';
import { cookieMayAuthenticate } from './csrf.js';
import { cameOverHttps, clearedSessionCookie, parseCookies, sessionCookie, SESSION_COOKIE } from './cookies.js';
import { forbiddenPage, invalidLinkPage, redirectBody, signInPage } from './pages.js';
import type { Presence } from './presence.js';
import { HTML, sendPage } from './respond.js';
import type { SessionStore } from './sessions.js';

/** The actor the console sends as (the spec: a human actor). */
export const CONSOLE_HUMAN = { type: 'human', id: 'console', name: 'Console' } as const;

export interface ConsoleDeps {
  sessions: SessionStore;
  presence: Presence;
  auth: () => Authenticator;
  address: () => { host: string; port: number } | undefined;
}

const NO_STORE = { 'cache-control': 'no-store' };

function baseOf(req: IncomingMessage, deps: ConsoleDeps): string {
  return baseUrlOf(req.headers, cameOverHttps(req), deps.address() ?? { host: '127.0.0.1', port: 0 });
}

/** `?access_token=T`: a session with exactly T's scopes, then a redirect that drops T from the URL. */
async function bootstrap(deps: ConsoleDeps, ctx: NetworkContext, req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
  const auth = deps.auth();
  const secure = cameOverHttps(req);
  if (auth.mode === 'none') {
    // Nothing to sign in to; just take the token out of the address bar.
    sendPage(req, res, 303, redirectBody('/console/'), { ...NO_STORE, 'content-type': HTML, location: '/console/' });
    return;
  }
  const r = token === '' ? { ok: false as const, reason: 'empty token' } : await principalForToken(auth, token);
  if (!r.ok) {
    sendPage(req, res, 401, invalidLinkPage(baseOf(req, deps)), { ...NO_STORE, 'content-type': HTML });
    return;
  }
  const d = authorize(r.principal, 'console', ctx.config.auth);
  if (!d.allow) {
    sendPage(req, res, d.status, forbiddenPage(d.reason), { ...NO_STORE, 'content-type': HTML });
    return;
  }
  const old = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
  deps.sessions.close(old);
  const id = deps.sessions.open(token);
  sendPage(req, res, 303, redirectBody('/console/'), {
    ...NO_STORE,
    'content-type': HTML,
    location: '/console/',
    'set-cookie': sessionCookie(id, secure),
  });
}

async function shell(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const index = await loadAsset('index.html');
  if (!index) throw new AppError('internal_error', 'the console files are missing from this installation');
  sendPage(req, res, 200, index.body, { ...NO_STORE, 'content-type': HTML });
}

function sessionView(ctx: NetworkContext, p: Principal, signedIn: boolean) {
  const c = ctx.config;
  return {
    signed_in: signedIn,
    principal: p.kind === 'static' ? 'token' : p.kind,
    scopes:
      p.kind === 'static' || p.kind === 'agent'
        ? [...p.scopes].sort()
        : p.kind === 'trusted'
          ? ['admin', 'attach', 'observe', 'write']
          : [],
    can_send_human: canSendHuman(ctx, p),
    human: CONSOLE_HUMAN,
    protected: c.auth.mode !== 'none' && !c.auth.public_read,
  };
}

/** The console's routes over the given sessions and presence. */
export function consoleRoutes(deps: ConsoleDeps): Route[] {
  const signedIn = (req: IncomingMessage) => deps.sessions.tokenOf(parseCookies(req.headers.cookie).get(SESSION_COOKIE)) !== undefined;
  return [
    {
      // The server's root leads a person who typed its address to the console.
      method: 'GET',
      path: '/',
      raw: true,
      handler: ({ req, res }) =>
        sendPage(req, res, 302, redirectBody('/console/'), { ...NO_STORE, 'content-type': HTML, location: '/console/' }),
    },
    {
      method: 'GET',
      path: '/console',
      raw: true,
      handler: ({ req, res, url }) => {
        const to = `/console/${url.search}`;
        sendPage(req, res, 308, redirectBody(to), { ...NO_STORE, 'content-type': HTML, location: to });
      },
    },
    {
      method: 'GET',
      path: '/console/',
      raw: true,
      handler: async ({ req, res, url, principal, ctx }) => {
        const token = url.searchParams.get('access_token');
        if (token !== null) return bootstrap(deps, ctx, req, res, token);
        const d = authorize(principal, 'console', ctx.config.auth);
        if (!d.allow && d.status === 401)
          return sendPage(req, res, 401, signInPage(baseOf(req, deps)), { ...NO_STORE, 'content-type': HTML });
        if (!d.allow) return sendPage(req, res, 403, forbiddenPage(d.reason), { ...NO_STORE, 'content-type': HTML });
        await shell(req, res);
      },
    },
    {
      method: 'GET',
      path: '/console/:file',
      raw: true,
      handler: async ({ req, res, params }) => {
        const name = params.file!;
        const asset = name.endsWith('.html') ? undefined : await loadAsset(name);
        if (!asset) throw notFound(`console file ${name}`);
        if (etagMatches(req.headers['if-none-match'], asset.etag)) {
          return sendPage(req, res, 304, '', { etag: asset.etag, 'cache-control': 'no-cache' });
        }
        sendPage(req, res, 200, asset.body, { 'content-type': asset.type, etag: asset.etag, 'cache-control': 'no-cache' });
      },
    },
    {
      method: 'GET',
      path: '/console/api/session',
      action: 'console',
      handler: ({ req, ctx, principal }) => ({ body: sessionView(ctx, principal, signedIn(req)) }),
    },
    {
      method: 'GET',
      path: '/console/api/presence',
      action: 'console',
      handler: async ({ ctx, principal }) => {
        // Presence is private: anonymous public readers get none (the spec, Anonymous stream filtering).
        if (principal.kind === 'anonymous') return { body: { agents: [] } };
        const id = ctx.config.network.id;
        const v = viewerOf(principal);
        const local = roomsOfLocalAgents(
          (await ctx.store.listRooms()).filter((r) => canSeeRoom(v, r, id)),
          id,
        );
        return { body: { agents: deps.presence.snapshot((a) => canSeeListedAgent(v, a, local)) } };
      },
    },
    {
      method: 'POST',
      path: '/console/api/sign-out',
      handler: ({ req }) => {
        // The cookie alone names the session here, so apply the same origin lock as cookie writes:
        // a cross-site page must not be able to sign the operator out.
        if (!cookieMayAuthenticate(req.method, req.headers))
          throw new AppError('forbidden', 'sign-out must come from the console itself (cross-site request refused)');
        deps.sessions.close(parseCookies(req.headers.cookie).get(SESSION_COOKIE));
        return { body: { signed_out: true }, headers: { 'set-cookie': clearedSessionCookie(cameOverHttps(req)) } };
      },
    },
  ];
}
