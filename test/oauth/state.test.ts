// The OAuth server's state and keys live in the store: on sqlite a client registered by dynamic
// registration, an authorization under way and the cookie keys survive a restart; two instances
// on one Postgres schema share clients and interactions, and sign cookies and tokens with the same
// keys. Both suites run the app in process: the two instances share nothing but the schema (the
// providers, their caches and the keys read from the store are each app's own).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpServer } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'http://127.0.0.1:9/callback';
const CONSENT = /^\/console\/oauth\/([A-Za-z0-9_-]+)$/;

const baseOf = (s: HttpServer) => `http://127.0.0.1:${s.port}`;
// Every request names one public host, as a reverse proxy in front of the instances (or in front of
// the server across its restart, whose port changes) would: the issuer and resource are that host's.
const PUBLIC = 'svc.test';
const VIA = { 'x-forwarded-host': PUBLIC };

async function register(s: HttpServer): Promise<string> {
  const r = await fetch(`${baseOf(s)}/oauth/reg`, {
    method: 'POST',
    headers: { ...VIA, 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  assert.is(r.status, 201, await r.clone().text());
  return ((await r.json()) as { client_id: string }).client_id;
}

/** An authorization request (PKCE S256) for /v1/mcp on `s`. */
function authorize(s: HttpServer, client: string): Promise<Response> {
  const q = new URLSearchParams({
    client_id: client,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    resource: `http://${PUBLIC}/v1/mcp`,
    state: 'xyz',
  });
  return fetch(`${baseOf(s)}/oauth/auth?${q}`, { redirect: 'manual', headers: VIA });
}

/** The `name=value` pairs a response set, as one Cookie header. */
const cookiesOf = (r: Response): string =>
  r.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');

/** Asserts the answer sends the browser on to the consent page; returns the interaction uid. */
async function toConsent(r: Response, what: string): Promise<string> {
  const loc = r.headers.get('location') ?? '';
  assert.is(r.status, 303, `${what}: ${r.status} ${loc} ${r.status === 303 ? '' : await r.text()}`);
  const m = CONSENT.exec(loc);
  assert.ok(m, `${what}: redirected to ${loc}`);
  return m![1]!;
}

/** Resumes an authorization at /oauth/auth/<uid> with the cookies its request set. */
function resume(s: HttpServer, uid: string, cookie: string): Promise<Response> {
  return fetch(`${baseOf(s)}/oauth/auth/${uid}`, { redirect: 'manual', headers: { ...VIA, cookie } });
}

const restart = suite<{ s: AppServer }>('oauth state across a restart (sqlite)');
restart.before(async (ctx) => {
  ctx.s = await startApp();
});
restart.after(async (ctx) => ctx.s?.dispose());

restart('a client registered before a restart is still known after it, and an authorization under way resumes', async ({ s }) => {
  const client = await register(s);
  const first = await authorize(s, client);
  const uid = await toConsent(first, 'before the restart');
  const cookie = cookiesOf(first);
  assert.match(cookie, /_interaction_resume=/);
  await s.restart();
  await toConsent(await authorize(s, client), 'a new request after the restart');
  // The resume cookie is checked with the stored cookie keys and the interaction is read from the
  // store: the request goes on to the consent page instead of "authorization request has expired".
  await toConsent(await resume(s, uid, cookie), 'resuming after the restart');
  const forged = cookie.replace(/(_interaction_resume\.sig=)[^;]+/, '$1AAAAAAAAAAAAAAAAAAAAAAAAAA');
  const refused = await resume(s, uid, forged);
  assert.is(refused.status, 400, 'a cookie not signed with the stored keys is refused');
});

restart('an unknown client is refused, so the check above can fail', async ({ s }) => {
  const r = await authorize(s, 'never-registered');
  assert.is(r.status, 400);
  assert.not.match(r.headers.get('location') ?? '', CONSENT);
});

restart.run();

const two = suite<{ pgs: PgSchema; a: AppServer; b: AppServer }>('oauth state shared by two instances (postgres)');
two.before(async (ctx) => {
  ctx.pgs = await freshSchema();
  // One after the other: the first migrates the schema.
  ctx.a = await startPgApp(ctx.pgs);
  ctx.b = await startPgApp(ctx.pgs);
});
two.after(async ({ pgs, a, b }) => {
  await Promise.all([a?.dispose(), b?.dispose()]);
  await pgs?.drop();
});

two('a client registered on one instance is accepted on the other, which resumes what the first began', async ({ a, b }) => {
  const client = await register(a);
  await toConsent(await authorize(b, client), 'the authorization request on B');
  const onA = await authorize(a, client);
  const uid = await toConsent(onA, 'the authorization request on A');
  // B reads A's interaction and checks A's signed cookie with the same keys.
  await toConsent(await resume(b, uid, cookiesOf(onA)), 'resuming on B what A began');
});

two('both instances publish the same signing keys', async ({ a, b }) => {
  const keys = async (s: HttpServer) =>
    ((await (await fetch(`${baseOf(s)}/oauth/jwks`)).json()) as { keys: { kid: string; n: string }[] }).keys;
  const [ka, kb] = [await keys(a), await keys(b)];
  assert.ok(ka.length > 0);
  assert.equal(ka, kb);
  assert.not.ok(JSON.stringify(ka).includes('"d"'), 'no private part is published');
});

two.run();
