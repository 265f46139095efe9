// The OAuth flow of an MCP client driven over plain HTTP, no browser: dynamic registration, the
// authorization request, the consent approved by a caller with a bearer token (the console page
// takes the same principal a session cookie would give), the resumed request's redirect with the
// code, the token exchange and refresh. For tests that need a grant and its tokens quickly.

import * as assert from 'uvu/assert';

export const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
export const REDIRECT = 'http://127.0.0.1:9/callback';

export interface Tokens {
  access_token: string;
  refresh_token?: string;
}

/** Registers a public client (RFC 7591) at `base`; its client_id. */
export async function registerClient(base: string, meta: Record<string, unknown> = {}): Promise<string> {
  const r = await fetch(`${base}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Headless client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...meta,
    }),
  });
  assert.is(r.status, 201, await r.clone().text());
  return ((await r.json()) as { client_id: string }).client_id;
}

/** The `name=value` pairs a response set, added to `jar`. */
function keep(jar: Map<string, string>, r: Response): void {
  for (const c of r.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const i = pair!.indexOf('=');
    jar.set(pair!.slice(0, i), pair!.slice(i + 1));
  }
}
const cookie = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/** An authorization request for `client` at `base` (PKCE S256, resource /v1/mcp); the raw answer. */
export function authorize(base: string, client: string, extra: Record<string, string> = {}): Promise<Response> {
  const q = new URLSearchParams({
    client_id: client,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    resource: `${base}/v1/mcp`,
    state: 'st',
    ...extra,
  });
  return fetch(`${base}/oauth/auth?${q}`, { redirect: 'manual' });
}

/** Approves `client` to act as `agent` on the consent page with `token`'s authority (`extra`: more authorization parameters); the code. */
export async function approve(
  base: string,
  client: string,
  agent: string,
  token: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const jar = new Map<string, string>();
  const first = await authorize(base, client, extra);
  keep(jar, first);
  const consent = first.headers.get('location') ?? '';
  assert.match(consent, /^\/console\/oauth\//, `${first.status} ${await first.text()}`);
  const post = await fetch(`${base}${consent}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}`, cookie: cookie(jar) },
    body: new URLSearchParams({ decision: 'approve', agent }),
  });
  keep(jar, post);
  assert.is(post.status, 303, await post.text());
  const resume = new URL(post.headers.get('location')!, base);
  const back = await fetch(resume, { redirect: 'manual', headers: { cookie: cookie(jar) } });
  const to = new URL(back.headers.get('location') ?? '', base);
  assert.is(`${to.origin}${to.pathname}`, REDIRECT, `${back.status} ${to.href}`);
  const code = to.searchParams.get('code');
  assert.ok(code, to.href);
  return code!;
}

/** POSTs a form to the token endpoint; the raw answer. */
export function tokenRequest(base: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
}

/** Exchanges a code for tokens. */
export async function exchange(base: string, client: string, code: string): Promise<Tokens> {
  const r = await tokenRequest(base, {
    grant_type: 'authorization_code',
    code,
    client_id: client,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
    resource: `${base}/v1/mcp`,
  });
  assert.is(r.status, 200, await r.clone().text());
  return (await r.json()) as Tokens;
}

/** The whole flow: a new client approved for `agent` (`extra`: more authorization parameters, a scope), its code exchanged. */
export async function grantFor(
  base: string,
  agent: string,
  token: string,
  extra: Record<string, string> = {},
): Promise<Tokens & { client: string }> {
  const client = await registerClient(base);
  return { client, ...(await exchange(base, client, await approve(base, client, agent, token, extra))) };
}

/** POST initialize to /v1/mcp with a bearer token; the status. */
export async function mcpStatus(base: string, token: string): Promise<number> {
  const r = await fetch(`${base}/v1/mcp`, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'headless', version: '1' } },
    }),
  });
  await r.body?.cancel();
  return r.status;
}
