// Failed authentications are limited per client address by default (server.limits.
// auth_failures_per_minute, 20): bad bearer tokens on HTTP routes, the SSE stream and the attach
// upgrade, and bad console sign-in codes, all count; past the limit they get 429 with the error
// envelope and Retry-After. A valid credential from the same address is still served.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

interface Answer {
  status: number;
  body: { code?: string; error?: string; request_id?: string } | undefined;
  retryAfter: string | undefined;
}

/** One GET (or WebSocket upgrade request) from a chosen loopback source address. */
function get(s: AppServer, path: string, opts: { from?: string; token?: string; upgrade?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    if (opts.upgrade) {
      Object.assign(headers, {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      });
    }
    const req = http.request({
      host: '127.0.0.1',
      port: s.port,
      path,
      method: 'GET',
      agent: false,
      headers,
      ...(opts.from ? { localAddress: opts.from } : {}),
    });
    const answer = (res: http.IncomingMessage, keep: boolean) => {
      if (!keep) {
        resolve({ status: res.statusCode!, body: undefined, retryAfter: undefined });
        res.destroy();
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let body;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, body, retryAfter: res.headers['retry-after'] as string | undefined });
      });
    };
    req.on('response', (res) => answer(res, !(res.headers['content-type'] ?? '').startsWith('text/event-stream')));
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode!, body: undefined, retryAfter: undefined });
    });
    req.on('error', reject);
    req.end();
  });
}

const statuses = (as: Answer[]) => as.map((a) => a.status);

function assertLimited(a: Answer, what: string): void {
  assert.is(a.status, 429, `${what}: ${a.status}`);
  assert.is(a.body?.code, 'too_many_requests', what);
  assert.ok(typeof a.body?.error === 'string' && a.body.error.includes('auth_failures_per_minute'), `${what}: ${a.body?.error}`);
  const secs = Number(a.retryAfter);
  assert.ok(secs >= 1 && secs <= 60, `${what}: Retry-After ${a.retryAfter}`);
}

const t = suite<{ s: AppServer }>('failed authentications are limited per address by default');

t.before(async (ctx) => {
  // The test helpers raise the limit for all other tests; an empty server.limits is the default config.
  ctx.s = await startApp({ config: { server: { limits: {} } } });
});
t.after(async (ctx) => {
  await ctx.s.stop();
});

t('100 bad-token attach upgrades: the first 20 get 401, the rest 429 before any upgrade; a valid token still attaches', async ({ s }) => {
  const from = '127.0.0.2';
  const answers: Answer[] = [];
  for (let i = 0; i < 100; i++) answers.push(await get(s, '/v1/attach', { from, token: `tok-guess-${i}`, upgrade: true }));
  assert.equal(statuses(answers.slice(0, 20)), Array(20).fill(401));
  for (const a of answers.slice(20)) assertLimited(a, 'a bad-token upgrade past the limit');
  const ok = await get(s, '/v1/attach', { from, token: TOKENS.admin.value, upgrade: true });
  assert.is(ok.status, 101, 'a valid token from the limited address is upgraded');
});

t('bad bearer tokens on HTTP routes and the SSE stream share the limit; valid tokens and other addresses are served', async ({ s }) => {
  const from = '127.0.0.3';
  const answers: Answer[] = [];
  for (let i = 0; i < 10; i++) answers.push(await get(s, '/v1/network', { from, token: `tok-guess-${i}` }));
  for (let i = 0; i < 10; i++) answers.push(await get(s, '/v1/events/stream', { from, token: `tok-guess-sse-${i}` }));
  assert.equal(statuses(answers), Array(20).fill(401));
  assertLimited(await get(s, '/v1/network', { from, token: 'tok-guess-x' }), 'HTTP past the limit');
  assertLimited(await get(s, '/v1/events/stream', { from, token: 'tok-guess-y' }), 'SSE past the limit');
  assertLimited(await get(s, '/v1/attach', { from, token: 'tok-guess-z', upgrade: true }), 'attach past the limit');
  assert.is((await get(s, '/v1/network', { from, token: TOKENS.admin.value })).status, 200, 'a valid token is served');
  assert.is((await get(s, '/v1/network', { from: '127.0.0.4', token: 'tok-guess-other' })).status, 401, 'another address is not limited');
});

t('bad console sign-in codes count as failed authentications', async ({ s }) => {
  const from = '127.0.0.5';
  const answers: Answer[] = [];
  for (let i = 0; i < 25; i++) answers.push(await get(s, `/console/sign-in?code=guess${i}`, { from }));
  assert.equal(statuses(answers.slice(0, 20)), Array(20).fill(401));
  for (const a of answers.slice(20)) assertLimited(a, 'a bad sign-in code past the limit');
});

t('requests without a credential are not failures', async ({ s }) => {
  const from = '127.0.0.6';
  for (let i = 0; i < 30; i++) assert.is((await get(s, '/v1/network', { from })).status, 401);
});

t.run();

const c = suite<{ s: AppServer }>('the failed-authentication limit is configurable');

c('a configured low limit is honoured, and 0 switches it off', async () => {
  const low = await startApp({ config: { server: { limits: { auth_failures_per_minute: 3 } } } });
  try {
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await get(low, '/v1/attach', { token: `tok-guess-${i}`, upgrade: true }));
    assert.equal(statuses(answers), [401, 401, 401, 429, 429, 429]);
  } finally {
    await low.stop();
  }
  const off = await startApp({ config: { server: { limits: { auth_failures_per_minute: 0 } } } });
  try {
    for (let i = 0; i < 40; i++) assert.is((await get(off, '/v1/network', { token: `tok-guess-${i}` })).status, 401);
  } finally {
    await off.stop();
  }
});

c.run();
