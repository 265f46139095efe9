// Open dynamic client registration is bounded (issue 38 item 3): a long client_name or large
// metadata is refused as RFC 7591 says (400 invalid_client_metadata), a client is stored to be
// forgotten after a day unless its code was exchanged (then it is kept while its grant lasts, and
// a day more), registrations per client address are limited (429 with Retry-After), and the
// stored clients are capped (503). The stored rows are read from the server's own sqlite store,
// with the server stopped.

import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { kindOf } from '../../src/oauth/adapter.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { approve, exchange, registerClient } from './headless.js';

const ADMIN = TOKENS.admin.value;
const DAY = 24 * 3600 * 1000;

interface Ctx {
  s: AppServer;
  unused: string;
  used: string;
}

function reg(s: AppServer, meta: Record<string, unknown>): Promise<Response> {
  return fetch(`${s.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none', ...meta }),
  });
}

/** Runs `fn` on the server's store while the server is stopped, then starts it again. */
async function withStore(s: AppServer, fn: (store: Store) => Promise<void>): Promise<void> {
  await s.stop();
  const store = await openStore({ backend: 'sqlite', path: path.join(s.dir, '.svc/svc.db'), checkpoint_bytes: 64 * 1024 * 1024 });
  try {
    await fn(store);
  } finally {
    await store.close();
  }
  await s.restart();
}

const t = suite<Ctx>('oauth dynamic client registration is bounded');
t.before(async (ctx) => {
  ctx.s = await startApp();
  const r = await ctx.s.req('POST', '/v1/agents/register', { token: ADMIN, body: { requested_agent_id: 'beta' } });
  assert.is(r.status, 200, r.text);
});
t.after(async (ctx) => ctx.s?.dispose());

t('a client_name over 200 characters (the 54 KB one too) is refused 400 invalid_client_metadata', async (ctx) => {
  for (const name of ['n'.repeat(201), 'x'.repeat(54 * 1024)]) {
    const r = await reg(ctx.s, { client_name: name });
    assert.is(r.status, 400);
    const body = (await r.json()) as { error: string; error_description: string };
    assert.is(body.error, 'invalid_client_metadata');
    assert.match(body.error_description, /client_name: at most 200 characters/);
  }
  assert.is((await reg(ctx.s, { client_name: 'n'.repeat(200) })).status, 201, '200 characters are fine');
});

t('metadata over 4096 bytes in all is refused with invalid_client_metadata', async (ctx) => {
  const uris = Array.from({ length: 30 }, (_, i) => `https://client.example/${'p'.repeat(150)}/${i}`);
  const r = await reg(ctx.s, { redirect_uris: uris });
  assert.is(r.status, 400);
  const body = (await r.json()) as { error: string; error_description: string };
  assert.is(body.error, 'invalid_client_metadata');
  assert.match(body.error_description, /at most 4096 are kept/);
});

t('a client is stored to expire in a day unless used; a used one is kept while its grant lasts, and a day more', async (ctx) => {
  ctx.unused = await registerClient(ctx.s.url);
  ctx.used = await registerClient(ctx.s.url);
  await exchange(ctx.s.url, ctx.used, await approve(ctx.s.url, ctx.used, 'beta', ADMIN));
  const at = Date.now();
  await withStore(ctx.s, async (store) => {
    const unused = await store.kv.get(kindOf('Client'), ctx.unused);
    assert.ok(unused?.expires_at, 'an unused client expires');
    assert.ok(Math.abs(unused!.expires_at! - (at + DAY)) < 120_000, `in a day: ${new Date(unused!.expires_at!).toISOString()}`);
    const used = await store.kv.get(kindOf('Client'), ctx.used);
    assert.ok(
      Math.abs(used!.expires_at! - (at + 31 * DAY)) < 120_000,
      `a day after its grant: ${new Date(used!.expires_at!).toISOString()}`,
    );
    assert.equal(await store.kv.list('oauth:RegistrationAccessToken'), [], 'no registration access token is stored per client');
  });
});

t('registrations per client address are limited: the 21st in an hour is 429 with Retry-After', async (ctx) => {
  // The restart above began a new hour's allowance.
  for (let i = 0; i < 20; i++) assert.is((await reg(ctx.s, {})).status, 201, `registration ${i + 1}`);
  const r = await reg(ctx.s, {});
  assert.is(r.status, 429);
  assert.ok(Number(r.headers.get('retry-after')) > 0);
  const body = (await r.json()) as { error: string; error_description: string };
  assert.is(body.error, 'too_many_requests');
  assert.match(body.error_description, /limit 20 per hour/);
});

t('the stored clients are capped at 1000: a registration past the cap is 503', async (ctx) => {
  await withStore(ctx.s, async (store) => {
    const have = await store.kv.count(kindOf('Client'));
    for (let i = have; i < 1000; i++)
      await store.kv.put({ kind: kindOf('Client'), id: `filler-${i}`, value: '{}', expires_at: Date.now() + DAY });
  });
  const r = await reg(ctx.s, {});
  assert.is(r.status, 503);
  assert.is(((await r.json()) as { error: string }).error, 'service_unavailable');
});

t.run();
