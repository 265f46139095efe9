// The console over HTTP: the bootstrap link, the session cookie as a credential with exactly its
// token's scopes, the sign-in and error pages, security headers and the static files.

import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { eventually, roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

/** uvu ignores an error thrown in `before` (the suite then "passes" with no test run); a setup run
 * once from `before.each` makes a failed setup fail every test instead. */
function setupOnce<T>(t: Test<T>, fn: (ctx: T) => Promise<void>): void {
  let ready: Promise<void> | undefined;
  t.before.each(async (ctx) => {
    ready ??= fn(ctx);
    await ready;
  });
}

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

interface Raw {
  status: number;
  headers: Headers;
  text: string;
}

async function raw(s: AppServer, p: string, init: RequestInit = {}): Promise<Raw> {
  const r = await fetch(`${s.url}${p}`, { redirect: 'manual', ...init });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** Opens a console session through the bootstrap link; returns the Cookie header value. */
async function signIn(s: AppServer, token: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await raw(s, `/console/?access_token=${encodeURIComponent(token)}`, { headers });
  assert.is(r.status, 303, r.text);
  const set = r.headers.get('set-cookie') ?? '';
  const m = /^(svc_session=[A-Za-z0-9_-]+);/.exec(set);
  assert.ok(m, set);
  return m![1]!;
}

const withCookie = (cookie: string, extra: Record<string, string> = {}) => ({ headers: { cookie, ...extra } });

function assertSecurityHeaders(h: Headers) {
  assert.is(h.get('content-security-policy'), CSP);
  assert.is(h.get('x-content-type-options'), 'nosniff');
  assert.is(h.get('referrer-policy'), 'no-referrer');
}

const b = suite<{ s: AppServer }>('the console bootstrap on a protected network');
setupOnce(b, async (ctx) => {
  ctx.s = await startApp({
    config: {
      rooms: [
        { id: 'general', members: ['alpha'] },
        { id: 'hidden', members: ['beta'], visibility: 'private' },
      ],
    },
  });
});
b.after(async (ctx) => ctx.s?.dispose());

b('without a session /console/ is a readable sign-in page that recommends an observe token', async ({ s }) => {
  const r = await raw(s, '/console/');
  assert.is(r.status, 401);
  assert.is(r.headers.get('content-type'), 'text/html; charset=utf-8');
  assertSecurityHeaders(r.headers);
  assert.ok(r.text.includes(`${s.url}/console/?access_token=&lt;token&gt;`), r.text);
  assert.ok(r.text.includes('<code>observe</code>'));
  assert.not.ok(r.text.includes('"code"'));
});

b('a valid token sets an HttpOnly SameSite=Strict session cookie and redirects to /console/ without the token', async ({ s }) => {
  const r = await raw(s, `/console/?access_token=${TOKENS.observer.value}`);
  assert.is(r.status, 303);
  assert.is(r.headers.get('location'), '/console/');
  assert.match(r.headers.get('set-cookie') ?? '', /^svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
  assert.is(r.headers.get('cache-control'), 'no-store');
  assert.is(r.headers.get('referrer-policy'), 'no-referrer');
  assert.not.ok(r.text.includes(TOKENS.observer.value));
});

b('the cookie is Secure when the request came over https through a proxy', async ({ s }) => {
  const r = await raw(s, `/console/?access_token=${TOKENS.observer.value}`, { headers: { 'x-forwarded-proto': 'https' } });
  assert.match(r.headers.get('set-cookie') ?? '', /; Secure$/);
});

b('an invalid token gives a readable page, no cookie and no JSON', async ({ s }) => {
  for (const t of ['not-a-token', '', 'agt_v1_bogus']) {
    const r = await raw(s, `/console/?access_token=${t}`);
    assert.is(r.status, 401, t);
    assert.is(r.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.is(r.headers.get('set-cookie'), null);
    assert.ok(r.text.includes('Sign-in link not valid'));
    assert.not.ok(r.text.includes('"code"'));
    assertSecurityHeaders(r.headers);
  }
});

b('a token that cannot observe is refused with a readable page and no session', async ({ s }) => {
  for (const t of [TOKENS.writer.value, TOKENS.pair.value]) {
    const r = await raw(s, `/console/?access_token=${t}`);
    assert.is(r.status, 403);
    assert.is(r.headers.get('set-cookie'), null);
    assert.ok(r.text.includes('Not allowed'));
  }
});

b('the session cookie opens the console shell, whose scripts are all same-origin files', async ({ s }) => {
  const cookie = await signIn(s, TOKENS.observer.value);
  const r = await raw(s, '/console/', withCookie(cookie));
  assert.is(r.status, 200);
  assertSecurityHeaders(r.headers);
  assert.is(r.headers.get('cache-control'), 'no-store');
  assert.ok(r.text.includes('<script type="module" src="/console/app.js"></script>'));
  assert.not.match(r.text, /<script(?![^>]*\bsrc="\/console\/)/, 'no inline or foreign script');
  assert.not.match(r.text, /https?:\/\//, 'nothing from another origin');
  assert.not.match(r.text, /\sstyle=|\son[a-z]+=/i, 'no inline style or handlers');
});

b('the session has exactly the token scopes on the API', async ({ s }) => {
  const obs = await signIn(s, TOKENS.observer.value);
  assert.is((await raw(s, '/v1/rooms', withCookie(obs))).status, 200);
  assert.is((await raw(s, '/v1/rooms/hidden/messages', withCookie(obs))).status, 200, 'observe sees private rooms');
  const send = (cookie: string) =>
    raw(s, '/v1/messages', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: s.url },
      body: JSON.stringify({ ...roomMessage('general', 'console', 'hi'), from: { type: 'human', id: 'console' } }),
    });
  assert.is((await send(obs)).status, 403, 'observe cannot write');
  assert.is((await raw(s, '/metrics', withCookie(obs))).status, 403, 'observe is not admin');
  const session = JSON.parse((await raw(s, '/console/api/session', withCookie(obs))).text);
  assert.equal(session.scopes, ['observe']);
  assert.is(session.signed_in, true);
  assert.is(session.can_send_human, false);
  assert.is(JSON.parse((await raw(s, '/v1/network', withCookie(obs))).text).console.can_send_human, false);

  const adm = await signIn(s, TOKENS.admin.value);
  assert.is((await send(adm)).status, 200, 'admin+write may send as a human into a members room');
  assert.is(JSON.parse((await raw(s, '/v1/network', withCookie(adm))).text).console.can_send_human, true);
  assert.equal(JSON.parse((await raw(s, '/console/api/session', withCookie(adm))).text).scopes, ['admin', 'attach', 'observe', 'write']);

  const agentOnly = await signIn(s, TOKENS.alphaOnly.value);
  assert.is(
    (await raw(s, '/v1/rooms/hidden/messages', withCookie(agentOnly))).status,
    404,
    'an allowlisted token sees only its agents rooms',
  );
});

b('the session cookie authenticates the SSE feed', async ({ s }) => {
  const cookie = await signIn(s, TOKENS.observer.value);
  const ac = new AbortController();
  try {
    const r = await fetch(`${s.url}/v1/events/stream`, { headers: { cookie }, signal: ac.signal });
    assert.is(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
  } finally {
    ac.abort();
  }
  const anon = await raw(s, '/v1/events/stream');
  assert.is(anon.status, 401);
});

b('access_token is accepted on /console/ only', async ({ s }) => {
  for (const p of ['/v1/rooms', '/v1/network', '/skill.md', '/llms.txt', '/v1/events/stream', '/console/api/session']) {
    const r = await raw(s, `${p}?access_token=${TOKENS.admin.value}`);
    assert.is(r.status, 401, p);
  }
});

b('an unknown or signed-out session is no credential', async ({ s }) => {
  const bogus = `svc_session=${'A'.repeat(43)}`;
  assert.is((await raw(s, '/console/', withCookie(bogus))).status, 401);
  assert.is((await raw(s, '/v1/rooms', withCookie(bogus))).status, 401);
  const cookie = await signIn(s, TOKENS.observer.value);
  const out = await raw(s, '/console/api/sign-out', { method: 'POST', headers: { cookie, origin: s.url } });
  assert.is(out.status, 200);
  assert.match(out.headers.get('set-cookie') ?? '', /^svc_session=; .*Max-Age=0/);
  assert.is((await raw(s, '/v1/rooms', withCookie(cookie))).status, 401);
  assert.is((await raw(s, '/console/', withCookie(cookie))).status, 401);
});

b('a cross-site write does not ride on the session cookie', async ({ s }) => {
  const cookie = await signIn(s, TOKENS.admin.value);
  const body = JSON.stringify({ ...roomMessage('general', 'console', 'csrf'), from: { type: 'human', id: 'console' } });
  const evil = await raw(s, '/v1/messages', {
    method: 'POST',
    headers: { cookie, origin: 'http://evil.example', 'content-type': 'text/plain' },
    body,
  });
  assert.is(evil.status, 401);
  const site = await raw(s, '/v1/messages', {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
    body,
  });
  assert.is(site.status, 401);
});

b('an Authorization header wins over the cookie and a bad one is still a 401', async ({ s }) => {
  const cookie = await signIn(s, TOKENS.admin.value);
  assert.is((await raw(s, '/v1/rooms', { headers: { cookie, authorization: 'Bearer wrong' } })).status, 401);
  assert.is((await raw(s, '/metrics', { headers: { cookie, authorization: `Bearer ${TOKENS.observer.value}` } })).status, 403);
});

b('presence shows an attached agent while its attachment is open', async ({ s }) => {
  const cookie = await signIn(s, TOKENS.observer.value);
  const presence = async () =>
    JSON.parse((await raw(s, '/console/api/presence', withCookie(cookie))).text).agents as { agent_id: string; connected: boolean }[];
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/attach`, { headers: { authorization: `Bearer ${TOKENS.alphaOnly.value}` } });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('message', (raw) => {
        const f = JSON.parse(raw.toString());
        if (f.op === 'HELLO')
          ws.send(
            JSON.stringify({
              op: 'IDENTIFY',
              network_id: s.networkId,
              agent: { id: 'alpha' },
              capabilities: { rooms: true, threads: true, dms: true, artifacts: true },
            }),
          );
        else if (f.op === 'READY') resolve();
        else if (f.op === 'ERROR') reject(new Error(f.error));
      });
    });
    await eventually(async () => (await presence()).some((a) => a.agent_id === 'alpha' && a.connected), 5000, 'alpha connected');
  } finally {
    ws.close();
  }
  await eventually(async () => (await presence()).some((a) => a.agent_id === 'alpha' && !a.connected), 5000, 'alpha disconnected');
  assert.is((await raw(s, '/console/api/presence')).status, 401);
});

b.run();

const f = suite<{ s: AppServer }>('the console static files');
setupOnce(f, async (ctx) => {
  ctx.s = await startApp();
});
f.after(async (ctx) => ctx.s?.dispose());

f('assets are served with their content types, security headers and an ETag', async ({ s }) => {
  const js = await raw(s, '/console/app.js');
  assert.is(js.status, 200);
  assert.is(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assertSecurityHeaders(js.headers);
  const etag = js.headers.get('etag');
  assert.ok(etag);
  const again = await raw(s, '/console/app.js', { headers: { 'if-none-match': etag! } });
  assert.is(again.status, 304);
  assert.is(again.text, '');
  assert.is((await raw(s, '/console/console.css')).headers.get('content-type'), 'text/css; charset=utf-8');
  assert.is((await raw(s, '/console/favicon.svg')).headers.get('content-type'), 'image/svg+xml');
});

f('no path leaves the console folder and the shell is only served at /console/', async ({ s }) => {
  for (const p of [
    '/console/..%2Fpackage.json',
    '/console/..%2F..%2Fpackage.json',
    '/console/.%2e%2Fsvc.yaml',
    '/console/index.html',
    '/console/missing.js',
    '/console/app.ts',
    '/console/a%00.js',
  ]) {
    const r = await raw(s, p);
    assert.is(r.status, 404, p);
    assert.not.ok(r.text.includes('"name": "svc"'), p);
  }
  // `/console/..` is the root, which leads back to the console.
  const up = await raw(s, '/console/%2e%2e');
  assert.is(up.status, 302);
  assert.is(up.headers.get('location'), '/console/');
});

f('/console redirects to /console/ and HEAD has no body', async ({ s }) => {
  const r = await raw(s, '/console');
  assert.is(r.status, 308);
  assert.is(r.headers.get('location'), '/console/');
  const h = await raw(s, '/console/app.js', { method: 'HEAD' });
  assert.is(h.status, 200);
  assert.is(h.text, '');
});

f.run();

const o = suite<{ s: AppServer }>('the console on a public-read network');
setupOnce(o, async (ctx) => {
  ctx.s = await startApp({ config: { auth: { public_read: true } } });
});
o.after(async (ctx) => ctx.s?.dispose());

o('anyone gets the console shell and a session view without scopes', async ({ s }) => {
  const r = await raw(s, '/console/');
  assert.is(r.status, 200);
  const session = JSON.parse((await raw(s, '/console/api/session')).text);
  assert.equal(session, {
    signed_in: false,
    principal: 'anonymous',
    scopes: [],
    can_send_human: false,
    human: { type: 'human', id: 'console', name: 'Console' },
    protected: false,
  });
  assert.equal(JSON.parse((await raw(s, '/console/api/presence')).text), { agents: [] }, 'presence is not public');
});

o.run();

const n = suite<{ s: AppServer }>('the console without authentication');
setupOnce(n, async (ctx) => {
  ctx.s = await startApp({ config: { auth: { mode: 'none', tokens: [] } } });
});
n.after(async (ctx) => ctx.s?.dispose());

n('a bootstrap link just drops the token from the URL', async ({ s }) => {
  const r = await raw(s, '/console/?access_token=anything');
  assert.is(r.status, 303);
  assert.is(r.headers.get('location'), '/console/');
  assert.is(r.headers.get('set-cookie'), null);
  assert.is((await raw(s, '/console/')).status, 200);
});

n.run();
