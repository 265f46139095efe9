// OAuth grants through the admin route and `svc agents grants`: each grant is listed with its
// client, the agent it acts as, scopes, created and expiry; revoking one deletes it and every token
// of it, so its refresh token stops working; callers without the admin scope are refused. Until
// the console's consent page issues grants, the test issues one as the provider would (its own
// models, over the same Postgres schema the server uses). The server runs in the test process; the
// CLI as a process.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Provider from 'oidc-provider';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { accountIdOf } from '../../src/oauth/account.js';
import { adapterOver, kindOf } from '../../src/oauth/adapter.js';
import { loadKeys } from '../../src/oauth/keys.js';
import { type HttpServer, TOKENS } from '../helpers/server.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { cli } from '../helpers/cli.js';

const PUBLIC = 'svc.test';
const VIA = { 'x-forwarded-host': PUBLIC };
const RESOURCE = `http://${PUBLIC}/v1/mcp`;
const REDIRECT = 'http://127.0.0.1:9/callback';
const ADMIN = TOKENS.admin.value;

/** The parts of oidc-provider's models the test uses to issue a grant. */
interface Models {
  Client: { find(id: string): Promise<unknown> };
  Grant: new (p: { accountId: string; clientId: string }) => { addResourceScope(r: string, s: string): void; save(): Promise<string> };
  RefreshToken: new (p: Record<string, unknown>) => { save(): Promise<string> };
}

interface Ctx {
  pgs: PgSchema;
  s: HttpServer;
  store: Store;
  client: string;
  grant: string;
  refresh: string;
}

const t = suite<Ctx>('oauth grants (admin route and svc agents grants)');
t.before(async (ctx) => {
  ctx.pgs = await freshSchema();
  ctx.s = await startPgApp(ctx.pgs);
  ctx.store = await openStore({ backend: 'postgres', url: ctx.pgs.url, schema: ctx.pgs.schema, path: '', checkpoint_bytes: 0 });
});
t.after(async (ctx) => {
  await ctx.s?.dispose();
  await ctx.store?.close();
  await ctx.pgs?.drop();
});

const base = (s: HttpServer) => `http://127.0.0.1:${s.port}`;

/** Exchanges a refresh token at the server's token endpoint. */
function refresh(ctx: Ctx): Promise<Response> {
  return fetch(`${base(ctx.s)}/oauth/token`, {
    method: 'POST',
    headers: { ...VIA, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: ctx.refresh, client_id: ctx.client }),
  });
}

/**
 * Issues a grant and a refresh token of it for `agent`, as the consent page's approval and the
 * token endpoint would store them: the provider's own models over the server's store, with the
 * server's keys. Undefined when the client is not found in the store.
 */
async function issue(ctx: Ctx, agent: string): Promise<[string, string] | undefined> {
  const keys = await loadKeys(ctx.store.kv);
  const provider = new Provider(`http://${PUBLIC}/oauth`, {
    adapter: adapterOver(ctx.store.kv),
    jwks: keys.jwks,
    cookies: { keys: keys.cookies },
    scopes: ['mcp', 'offline_access'],
    ttl: { Grant: 30 * 24 * 3600, RefreshToken: 30 * 24 * 3600 },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: { enabled: true, defaultResource: () => RESOURCE, useGrantedResource: () => true },
    },
  }) as unknown as Models;
  const client = await provider.Client.find(ctx.client);
  const record = await ctx.store.getAgent(agent);
  if (!client || !record) return undefined;
  // The account is the agent's registration, as the consent page names it.
  const accountId = accountIdOf(record);
  const grant = new provider.Grant({ accountId, clientId: ctx.client });
  grant.addResourceScope(RESOURCE, 'mcp offline_access');
  const grantId = await grant.save();
  const token = await new provider.RefreshToken({
    client,
    accountId,
    grantId,
    scope: 'mcp offline_access',
    resource: RESOURCE,
    gty: 'authorization_code',
  }).save();
  return [grantId, token];
}

const svc = (ctx: Ctx, ...args: string[]) => cli([...args, '--url', base(ctx.s), '--token', ADMIN]);

t('no grant is listed before any is made', async (ctx) => {
  const r = await ctx.s.get('/v1/oauth/grants', ADMIN);
  assert.is(r.status, 200, r.text);
  assert.equal(r.body, { grants: [] });
  const out = await svc(ctx, 'agents', 'grants');
  assert.is(out.code, 0, out.stderr);
  assert.match(out.stdout, /no OAuth grants/);
});

t('a grant issued for a registered client is listed with its client, agent, scopes and expiry', async (ctx) => {
  const reg = await fetch(`${base(ctx.s)}/oauth/reg`, {
    method: 'POST',
    headers: { ...VIA, 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Claude',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  assert.is(reg.status, 201);
  ctx.client = ((await reg.json()) as { client_id: string }).client_id;

  const issued = await issue(ctx, 'alpha');
  assert.ok(issued, 'the client registered through the server and the agent are read from the store');
  [ctx.grant, ctx.refresh] = issued;
  const ok = await refresh(ctx);
  assert.is(ok.status, 200, await ok.clone().text());
  const tokens = (await ok.json()) as { access_token: string; refresh_token: string };
  assert.ok(tokens.access_token);
  ctx.refresh = tokens.refresh_token;

  const r = await ctx.s.get('/v1/oauth/grants', ADMIN);
  assert.is(r.status, 200, r.text);
  assert.is(r.body.grants.length, 1);
  const g = r.body.grants[0];
  assert.is(g.id, ctx.grant);
  assert.equal(g.client, { id: ctx.client, name: 'Claude' });
  assert.is(g.agent_id, 'alpha');
  assert.equal(g.scopes, ['mcp', 'offline_access']);
  assert.ok(Date.parse(g.created_at) <= Date.now());
  assert.ok(Date.parse(g.expires_at) > Date.now() + 29 * 24 * 3600 * 1000, 'the grant expires when it was stored to');

  const table = await svc(ctx, 'agents', 'grants');
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /^ID\s+CLIENT\s+AGENT\s+SCOPES\s+CREATED\s+EXPIRES/);
  assert.ok(table.stdout.includes(ctx.grant) && table.stdout.includes(`Claude (${ctx.client})`) && /\balpha\b/.test(table.stdout));
  const asJson = await svc(ctx, 'agents', 'grants', '--json');
  assert.is(asJson.code, 0, asJson.stderr);
  assert.equal(JSON.parse(asJson.stdout), r.body);
});

t('callers without the admin scope may neither list nor revoke grants', async (ctx) => {
  for (const token of [TOKENS.writer.value, TOKENS.observer.value, TOKENS.alphaOnly.value]) {
    assert.is((await ctx.s.get('/v1/oauth/grants', token)).status, 403);
    assert.is((await ctx.s.req('DELETE', `/v1/oauth/grants/${ctx.grant}`, { token })).status, 403);
  }
  assert.is((await ctx.s.get('/v1/oauth/grants')).status, 401);
  const out = await cli(['agents', 'grants', 'revoke', ctx.grant, '--url', base(ctx.s), '--token', TOKENS.writer.value]);
  assert.is(out.code, 1);
  assert.match(out.stderr, /403/);
  assert.is((await ctx.s.get('/v1/oauth/grants', ADMIN)).body.grants.length, 1, 'still there');
});

t('svc agents grants revoke deletes the grant and every token of it: its refresh token stops working', async (ctx) => {
  const out = await svc(ctx, 'agents', 'grants', 'revoke', ctx.grant);
  assert.is(out.code, 0, out.stderr);
  assert.match(out.stdout, new RegExp(`revoked grant ${ctx.grant}`));
  assert.equal((await ctx.s.get('/v1/oauth/grants', ADMIN)).body, { grants: [] });
  for (const kind of ['AccessToken', 'RefreshToken']) {
    const left = (await ctx.store.kv.list(kindOf(kind))).filter((e) => e.grant_id === ctx.grant);
    assert.equal(left, [], `no ${kind} of the grant is left`);
  }
  const r = await refresh(ctx);
  assert.is(r.status, 400);
  assert.is(((await r.json()) as { error: string }).error, 'invalid_grant');
});

t('revoking an unknown grant is a 404, through the route and the CLI', async (ctx) => {
  const r = await ctx.s.req('DELETE', '/v1/oauth/grants/nope', { token: ADMIN });
  assert.is(r.status, 404);
  const out = await svc(ctx, 'agents', 'grants', 'revoke', 'nope');
  assert.is(out.code, 1);
  assert.match(out.stderr, /404/);
  // Grant ids are base64url: one that begins with '-' is an id, not an unknown option.
  const dashed = await svc(ctx, 'agents', 'grants', 'revoke', '-BP4tn1XIn1YUUZjYDll');
  assert.is(dashed.code, 1, dashed.stderr);
  assert.match(dashed.stderr, /404/);
});

t('a client revoking its refresh token (RFC 7009) ends its grant, which leaves the listing', async (ctx) => {
  const [grantId, token] = (await issue(ctx, 'alpha'))!;
  assert.ok((await ctx.s.get('/v1/oauth/grants', ADMIN)).body.grants.some((g: { id: string }) => g.id === grantId));
  const r = await fetch(`${base(ctx.s)}/oauth/token/revocation`, {
    method: 'POST',
    headers: { ...VIA, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: 'refresh_token', client_id: ctx.client }),
  });
  assert.is(r.status, 200);
  assert.equal((await ctx.s.get('/v1/oauth/grants', ADMIN)).body, { grants: [] });
  assert.equal(
    (await ctx.store.kv.all()).filter((e) => e.grant_id === grantId),
    [],
  );
});

t.run();
