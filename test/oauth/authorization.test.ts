// What the authorization server offers and keeps (issue 38 item 11): its metadata names only the
// code flow with PKCE S256; an authorization request refused for a dynamically registered client
// (whose redirect URI nobody verified) is answered with a page, not a redirect to that URI, while
// a person's denial on the consent page still goes back to the client; and a consent whose code
// is never exchanged leaves no grant listed.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { approve, authorize, exchange, registerClient } from './headless.js';

const ADMIN = TOKENS.admin.value;
const ATTACKER = 'https://attacker.example/landing';

interface Ctx {
  s: AppServer;
  client: string;
}

const t = suite<Ctx>('oauth authorization: offered, redirected, kept');
t.before(async (ctx) => {
  ctx.s = await startApp();
  const r = await ctx.s.req('POST', '/v1/agents/register', { token: ADMIN, body: { requested_agent_id: 'beta' } });
  assert.is(r.status, 200, r.text);
  ctx.client = await registerClient(ctx.s.url);
});
t.after(async (ctx) => ctx.s?.dispose());

t('the metadata offers the authorization code only: no implicit grant, no id_token or token response type', async (ctx) => {
  const meta = (await (await fetch(`${ctx.s.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
  assert.equal(meta.response_types_supported, ['code']);
  assert.equal(meta.code_challenge_methods_supported, ['S256']);
  const grants = meta.grant_types_supported as string[];
  assert.not.ok(grants.includes('implicit'), grants.join());
  assert.ok(grants.includes('authorization_code') && grants.includes('refresh_token'), grants.join());
  for (const endpoint of ['userinfo_endpoint', 'end_session_endpoint', 'pushed_authorization_request_endpoint'])
    assert.is(meta[endpoint], undefined, `no ${endpoint}: it is not served`);
});

t('a client cannot register a response type that is not offered', async (ctx) => {
  const r = await fetch(`${ctx.s.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [ATTACKER], response_types: ['code id_token'], grant_types: ['authorization_code', 'implicit'] }),
  });
  assert.is(r.status, 400);
  assert.is(((await r.json()) as { error: string }).error, 'invalid_client_metadata');
});

t('a refused request of a registered client shows a page instead of redirecting to its unverified redirect URI', async (ctx) => {
  const client = await registerClient(ctx.s.url, { redirect_uris: [ATTACKER] });
  for (const [what, extra] of [
    ['PKCE plain', { code_challenge_method: 'plain' }],
    ['a response type not offered', { response_type: 'token' }],
    ['another resource', { resource: 'https://elsewhere.example/mcp' }],
    ['prompt=none without a session', { prompt: 'none' }],
  ] as [string, Record<string, string>][]) {
    const r = await authorize(ctx.s.url, client, { redirect_uri: ATTACKER, ...extra });
    assert.is(r.headers.get('location'), null, `${what}: redirected to ${r.headers.get('location')}`);
    assert.is(r.status, 400, what);
    const page = await r.text();
    assert.match(page, /data-testid="oauth-error"/, what);
    assert.not.match(page, /attacker\.example/, `${what}: the page does not link the redirect URI`);
  }
});

t("a person's denial on the consent page still goes back to the client", async (ctx) => {
  const first = await authorize(ctx.s.url, ctx.client);
  const cookie = first.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const consent = first.headers.get('location')!;
  const post = await fetch(`${ctx.s.url}${consent}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${ADMIN}`, cookie },
    body: new URLSearchParams({ decision: 'deny' }),
  });
  assert.is(post.status, 303);
  const back = await fetch(new URL(post.headers.get('location')!, ctx.s.url), { redirect: 'manual', headers: { cookie } });
  assert.match(back.headers.get('location') ?? '', /^http:\/\/127\.0\.0\.1:9\/callback\?.*error=access_denied/);
});

t('a consent whose code is not exchanged leaves no grant listed; exchanging the code lists it', async (ctx) => {
  const code = await approve(ctx.s.url, ctx.client, 'beta', ADMIN);
  assert.equal((await ctx.s.get('/v1/oauth/grants', ADMIN)).body.grants, [], 'nothing listed before the exchange');
  await exchange(ctx.s.url, ctx.client, code);
  const grants = (await ctx.s.get('/v1/oauth/grants', ADMIN)).body.grants;
  assert.is(grants.length, 1);
  assert.is(grants[0].agent_id, 'beta');
  assert.ok(Date.parse(grants[0].expires_at) > Date.now() + 29 * 24 * 3600 * 1000, 'the grant lasts 30 days once used');
});

t.run();
