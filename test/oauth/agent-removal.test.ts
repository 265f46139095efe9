// A grant belongs to the agent registration it was given for: after `beta` is removed and
// registered again (anonymously, open registration), the tokens issued to the first `beta` act as
// nobody: the access token is 401 on /v1/mcp, the refresh token is refused, and the grant is no
// longer listed. The new `beta`'s own grant is untouched.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { grantFor, mcpStatus, tokenRequest, type Tokens } from './headless.js';

const ADMIN = TOKENS.admin.value;

interface Ctx {
  s: AppServer;
  first: Tokens & { client: string };
}

const t = suite<Ctx>('oauth grants end with the agent they were given for');
t.before(async (ctx) => {
  ctx.s = await startApp({ config: { auth: { agent_registration: 'open' } } });
});
t.after(async (ctx) => ctx.s?.dispose());

const register = (s: AppServer, token?: string) =>
  s.req('POST', '/v1/agents/register', { ...(token ? { token } : {}), body: { requested_agent_id: 'beta', name: 'Beta' } });

t('the flow as beta gives tokens that act as beta', async (ctx) => {
  const r = await register(ctx.s);
  assert.is(r.status, 200, r.text);
  ctx.first = await grantFor(ctx.s.url, 'beta', ADMIN);
  assert.ok(ctx.first.refresh_token, 'a refresh token');
  assert.is(await mcpStatus(ctx.s.url, ctx.first.access_token), 200);
  assert.is((await ctx.s.get('/v1/oauth/grants', ADMIN)).body.grants.length, 1);
});

t('removing beta and registering beta again anonymously: the old tokens are refused, the grant is gone', async (ctx) => {
  const del = await ctx.s.req('DELETE', '/v1/agents/beta', { token: ADMIN });
  assert.is(del.status, 200, del.text);
  const again = await register(ctx.s);
  assert.is(again.status, 200, again.text);
  assert.is(await mcpStatus(ctx.s.url, ctx.first.access_token), 401, 'the old access token is not the new beta');
  const refreshed = await tokenRequest(ctx.s.url, {
    grant_type: 'refresh_token',
    refresh_token: ctx.first.refresh_token!,
    client_id: ctx.first.client,
  });
  assert.is(refreshed.status, 400, await refreshed.clone().text());
  assert.is(((await refreshed.json()) as { error: string }).error, 'invalid_grant');
  await eventually(async () => (await ctx.s.get('/v1/oauth/grants', ADMIN)).body.grants.length === 0, 5000, 'the grant is revoked');
});

t("a grant for the new beta works, and the old one's revocation left it alone", async (ctx) => {
  const next = await grantFor(ctx.s.url, 'beta', ADMIN);
  assert.is(await mcpStatus(ctx.s.url, next.access_token), 200);
  const grants = (await ctx.s.get('/v1/oauth/grants', ADMIN)).body.grants;
  assert.is(grants.length, 1);
  assert.is(grants[0].agent_id, 'beta');
  assert.is(await mcpStatus(ctx.s.url, ctx.first.access_token), 401);
});

t.run();
