// The authorization server under /oauth/ over HTTP: its RFC 8414 metadata, dynamic client
// registration, PKCE S256 required (plain and missing refused), a token for another resource
// refused, an acceptable request sent on to the console consent, and the token and revocation
// endpoints reading their own form bodies; the consent page refusing a cross-site POST and a
// request it does not hold.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type AppServer } from '../helpers/app.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'http://127.0.0.1:9/callback';

interface Ctx {
  s: AppServer;
  base: string;
  meta: Record<string, unknown>;
  client: string;
}

const t = suite<Ctx>('oauth authorization server');
t.before(async (ctx) => {
  ctx.s = await startApp();
  ctx.base = `http://127.0.0.1:${ctx.s.port}`;
});
t.after(async (ctx) => ctx.s?.dispose());

async function authorize(ctx: Ctx, extra: Record<string, string>, omit: string[] = []): Promise<Response> {
  const q = new URLSearchParams({
    client_id: ctx.client,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    resource: `${ctx.base}/v1/mcp`,
    ...extra,
  });
  for (const k of omit) q.delete(k);
  return fetch(`${ctx.base}/oauth/auth?${q}`, { redirect: 'manual' });
}

t('the authorization-server metadata names the /oauth issuer, S256 only and the registration endpoint', async (ctx) => {
  const r = await fetch(`${ctx.base}/.well-known/oauth-authorization-server/oauth`);
  assert.is(r.status, 200);
  ctx.meta = (await r.json()) as Record<string, unknown>;
  assert.is(ctx.meta.issuer, `${ctx.base}/oauth`);
  assert.equal(ctx.meta.code_challenge_methods_supported, ['S256']);
  assert.is(ctx.meta.registration_endpoint, `${ctx.base}/oauth/reg`);
  assert.is(ctx.meta.revocation_endpoint, `${ctx.base}/oauth/token/revocation`);
});

t('a client registers itself without credentials (RFC 7591)', async (ctx) => {
  const r = await fetch(`${ctx.base}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  assert.is(r.status, 201);
  ctx.client = ((await r.json()) as { client_id: string }).client_id;
  assert.ok(ctx.client);
});

/** Asserts a refusal shown as a page (a registered client's redirect URI is not trusted with it) naming `error`. */
async function refusedWith(r: Response, error: string): Promise<void> {
  assert.is(r.headers.get('location'), null);
  assert.is(r.status, 400);
  assert.match(await r.text(), new RegExp(`data-testid="oauth-error">${error}<`));
}

t('an authorization request with PKCE plain is refused', async (ctx) => {
  await refusedWith(await authorize(ctx, { code_challenge_method: 'plain' }), 'invalid_request');
});

t('an authorization request without PKCE is refused', async (ctx) => {
  await refusedWith(await authorize(ctx, {}, ['code_challenge', 'code_challenge_method']), 'invalid_request');
});

t('an authorization request for another resource is refused', async (ctx) => {
  await refusedWith(await authorize(ctx, { resource: 'https://elsewhere.example/mcp' }), 'invalid_target');
});

t('an acceptable request is sent on to the consent page in the console', async (ctx) => {
  const r = await authorize(ctx, {});
  assert.is(r.status, 303);
  assert.match(r.headers.get('location') ?? '', /^\/console\/oauth\/[A-Za-z0-9_-]+$/);
});

t('the token endpoint reads its own form body: an unknown code is an OAuth invalid_grant', async (ctx) => {
  const r = await fetch(`${ctx.base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'not-a-code',
      client_id: ctx.client,
      redirect_uri: REDIRECT,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    }),
  });
  assert.is(r.status, 400);
  assert.is(((await r.json()) as { error: string }).error, 'invalid_grant');
});

t('revoking an unknown token answers 200 as RFC 7009 asks', async (ctx) => {
  const r = await fetch(`${ctx.base}/oauth/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: 'not-a-token', client_id: ctx.client }),
  });
  assert.is(r.status, 200);
});

t('a cross-site POST to the consent page is refused', async (ctx) => {
  const r = await fetch(`${ctx.base}/console/oauth/some-uid`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    body: 'decision=approve&agent=alpha',
  });
  assert.is(r.status, 403);
});

t('a consent page for a request this browser did not start says it is not open', async (ctx) => {
  const r = await fetch(`${ctx.base}/console/oauth/some-uid`);
  assert.is(r.status, 400);
  assert.match(await r.text(), /Request expired/);
});

t.run();
