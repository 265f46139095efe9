// POST /console/api/sign-out checks where the request comes from, like every cookie-authenticated
// write: a cross-site page cannot sign the operator out.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

async function signIn(s: AppServer): Promise<string> {
  const r = await fetch(`${s.url}/console/?access_token=${encodeURIComponent(TOKENS.observer.value)}`, { redirect: 'manual' });
  assert.is(r.status, 303, await r.text());
  const m = /^(svc_session=[A-Za-z0-9_-]+);/.exec(r.headers.get('set-cookie') ?? '');
  assert.ok(m);
  return m![1]!;
}

const signOut = (s: AppServer, headers: Record<string, string>) => fetch(`${s.url}/console/api/sign-out`, { method: 'POST', headers });
const stillSignedIn = async (s: AppServer, cookie: string) => (await fetch(`${s.url}/v1/rooms`, { headers: { cookie } })).status === 200;

const t = suite<{ s: AppServer }>('console sign-out');
t.before(async (ctx) => {
  ctx.s = await startApp();
});
t.after(async (ctx) => ctx.s.dispose());

t('a cross-site Origin is refused with 403 and the session stays open', async ({ s }) => {
  const cookie = await signIn(s);
  const r = await signOut(s, { cookie, origin: 'http://evil.example' });
  assert.is(r.status, 403);
  const body = (await r.json()) as { code: string; error: string };
  assert.is(body.code, 'forbidden');
  assert.match(body.error, /cross-site/);
  assert.is(r.headers.get('set-cookie'), null);
  assert.ok(await stillSignedIn(s, cookie));
});

t('Sec-Fetch-Site: cross-site is refused too', async ({ s }) => {
  const cookie = await signIn(s);
  assert.is((await signOut(s, { cookie, 'sec-fetch-site': 'cross-site' })).status, 403);
  assert.ok(await stillSignedIn(s, cookie));
});

t('the console itself (same origin) signs out', async ({ s }) => {
  const cookie = await signIn(s);
  const r = await signOut(s, { cookie, origin: s.url, 'sec-fetch-site': 'same-origin' });
  assert.is(r.status, 200);
  assert.not.ok(await stillSignedIn(s, cookie));
});

t.run();
