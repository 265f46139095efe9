// One edge every request body passes (src/http/body.ts): every route of the router gets a body
// nested 6,000 levels deep and one over 1 MiB and answers a clean 4xx (a route that takes no body
// drops a small one), never a 500 or a hang, and the server lives on; an inbound hook's deep body
// stores nothing; a declared 10 MiB body that never comes is answered 413 at once; a slow sender
// gets 408; OAuth and /v1/mcp answer refused bodies in their own error shapes.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { startServer, TOKENS, type TestServer } from '../helpers/server.js';
import { createApp } from '../../src/app.js';
import { defaultFeatures } from '../../src/features.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import type { Route } from '../../src/http/router.js';
import { deepBody, edgeRequest } from './edge-client.js';

const admin = TOKENS.admin.value;
const SECRET = 'ci-hook-secret-0123456789';
const JSON_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${admin}` };

const config = {
  server: { limits: { auth_failures_per_minute: 1_000_000, body_seconds: 2 } },
  rooms: [{ id: 'ops', members: ['ci', 'beta'] }],
  inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci', sender_name: 'CI', secret_env: 'CI_HOOK_SECRET' }],
};

/** Every route of the app (built in process, as the OpenAPI test does). */
async function allRoutes(): Promise<Route[]> {
  const loaded = parseConfig(
    { network: { id: 'routes' }, store: { backend: 'memory' }, auth: { mode: 'none' } },
    { baseDir: tmpdir(), env: {} },
  );
  const app = await createApp(loaded, { log: silentLogger, features: defaultFeatures });
  try {
    return [...app.router.routes()];
  } finally {
    await app.close();
  }
}

/** A concrete path for a route: the inbound hook's own id (so its body is read), `x` elsewhere. */
const pathOf = (r: Route) => r.path.replace(':hook_id', 'ci').replace(/\/:[a-z_]+(?=\/|$)/g, '/x');
const takesBody = (r: Route) => r.schema !== undefined || r.body !== undefined;

const t = suite<{ s: TestServer; routes: Route[] }>('the body edge (memory store)');
t.before(async (c) => {
  c.s = await startServer({ config: { ...config, store: { backend: 'memory' } }, env: { CI_HOOK_SECRET: SECRET } });
  c.routes = await allRoutes();
  const r = await c.s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'ops' }, from: { type: 'agent', id: 'beta' }, parts: [{ kind: 'text', text: 'before' }] },
    admin,
  );
  assert.is(r.status, 200, r.text);
});
t.after(async (c) => c.s?.dispose());

async function alive(s: TestServer): Promise<void> {
  assert.is(s.proc.exitCode, null, 'the server process exited');
  const h = await s.get('/healthz');
  assert.is(h.status, 200, h.text);
  const hist = await s.get('/v1/rooms/ops/messages', admin);
  assert.is(hist.status, 200, hist.text);
  assert.equal(
    hist.body.messages.map((m: { parts: { text?: string }[] }) => m.parts[0]?.text),
    ['before'],
    'only the first message is stored',
  );
}

t(
  'every route answers a 6,000-level body with a clean 4xx (or drops it when it takes none); never 5xx, never a hang',
  async ({ s, routes }) => {
    const body = deepBody();
    const wrong: string[] = [];
    for (const r of routes) {
      const headers =
        r.path === '/v1/hooks/:hook_id' ? { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` } : JSON_HEADERS;
      const a = await edgeRequest(s.port, { method: r.method, path: pathOf(r), headers, body });
      const ok = takesBody(r) ? a.status >= 400 && a.status < 500 : a.status < 500;
      if (!ok) wrong.push(`${r.method} ${r.path}: ${a.status} ${a.text.slice(0, 200)}`);
    }
    assert.equal(wrong, []);
    await alive(s);
  },
);

t('the body of a route that takes one is refused as too deep, in each route family', async ({ s }) => {
  const send = await edgeRequest(s.port, { method: 'POST', path: '/v1/messages', headers: JSON_HEADERS, body: deepBody() });
  assert.is(send.status, 400, send.text);
  assert.match(send.text, /nests arrays and objects deeper than 128 levels/);
  const hook = await edgeRequest(s.port, {
    method: 'POST',
    path: '/v1/hooks/ci',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
    body: deepBody(),
  });
  assert.is(hook.status, 400, hook.text);
  assert.match(hook.text, /deeper than 128 levels/);
  const react = await edgeRequest(s.port, {
    method: 'PUT',
    path: '/v1/messages/x/reactions/%F0%9F%91%8D',
    headers: JSON_HEADERS,
    body: deepBody(),
  });
  assert.is(react.status, 400, react.text);
  await alive(s);
});

t('every route answers a body over 1 MiB with 413 (or its gate refusal); the server lives on', async ({ s, routes }) => {
  const body = Buffer.from(JSON.stringify({ text: 'x'.repeat(1_100_000) }));
  const wrong: string[] = [];
  for (const r of routes) {
    // An upload's limit is server.limits.file_bytes, not 1 MiB (test/files/limits.test.ts).
    if (r.body?.kind === 'stream') continue;
    const headers =
      r.path === '/v1/hooks/:hook_id' ? { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` } : JSON_HEADERS;
    const a = await edgeRequest(s.port, { method: r.method, path: pathOf(r), headers, body });
    if (a.status !== 413 && a.status !== 401 && a.status !== 403) wrong.push(`${r.method} ${r.path}: ${a.status} ${a.text.slice(0, 200)}`);
  }
  assert.equal(wrong, []);
  await alive(s);
});

t('a declared 10 MiB body of which 10 bytes came is answered 413 at once, on every kind of body route', async ({ s }) => {
  for (const [method, path, headers] of [
    ['POST', '/v1/messages', JSON_HEADERS],
    ['POST', '/v1/hooks/ci', { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }],
    ['POST', '/v1/mcp', { ...JSON_HEADERS, accept: 'application/json, text/event-stream', 'x-svc-agent': 'beta' }],
    ['POST', '/oauth/reg', { 'content-type': 'application/json' }],
    ['GET', '/v1/rooms', JSON_HEADERS],
  ] as const) {
    // Before, the refusal waited for the 10 MiB to drain: no answer until Node's request timeout
    // (60 s), past this request's own 20 s.
    const a = await edgeRequest(s.port, {
      method,
      path,
      headers,
      body: Buffer.from('{"text":"x'),
      declared: 10 * 1024 * 1024,
      stall: true,
    });
    assert.is(a.status, 413, `${method} ${path}: ${a.text}`);
  }
  await alive(s);
});

t(
  'a refusal before the body (a bad token) is answered at once too, and the drain of the stalled body is bounded in time',
  async ({ s }) => {
    const a = await edgeRequest(s.port, {
      method: 'POST',
      path: '/v1/messages',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token-0123456789' },
      body: Buffer.from('{"te'),
      declared: 4 * 1024 * 1024,
      stall: true,
      // The drain gives up after 5 s and closes; before, the connection stayed until Node's 60 s request timeout.
      waitClose: true,
    });
    assert.is(a.status, 401, a.text);
    assert.ok(a.closed, 'the server closed the connection of the stalled upload');
  },
);

t('a body slower than server.limits.body_seconds is answered 408 request_timeout', async ({ s }) => {
  const a = await edgeRequest(s.port, {
    method: 'POST',
    path: '/v1/messages',
    headers: JSON_HEADERS,
    body: Buffer.from('{"te'),
    declared: 100,
    stall: true,
  });
  assert.is(a.status, 408, a.text);
  assert.is(JSON.parse(a.text).code, 'request_timeout');
  assert.match(JSON.parse(a.text).error, /server\.limits\.body_seconds/);
});

t('/v1/mcp answers a body that is not JSON with JSON-RPC -32700, a deep one with -32600, an oversized one with -32000', async ({ s }) => {
  const headers = { ...JSON_HEADERS, accept: 'application/json, text/event-stream', 'x-svc-agent': 'beta' };
  const bad = await edgeRequest(s.port, { method: 'POST', path: '/v1/mcp', headers, body: Buffer.from('this is not json') });
  assert.is(bad.status, 400, bad.text);
  const badBody = JSON.parse(bad.text);
  assert.is(badBody.jsonrpc, '2.0');
  assert.is(badBody.id, null);
  assert.is(badBody.error.code, -32700);
  const deep = await edgeRequest(s.port, { method: 'POST', path: '/v1/mcp', headers, body: deepBody() });
  assert.is(deep.status, 400, deep.text);
  assert.is(JSON.parse(deep.text).error.code, -32600);
  const big = await edgeRequest(s.port, { method: 'POST', path: '/v1/mcp', headers, body: Buffer.alloc(1_100_000, 0x20) });
  assert.is(big.status, 413, big.text);
  assert.is(JSON.parse(big.text).error.code, -32000);
});

t('/oauth/reg: a 50 KB nested unknown field is 400 invalid_request (not 500); a 1 MB body gets its 413, not a reset', async ({ s }) => {
  const nested = `{"redirect_uris":["https://app.example/cb"],"x":${'['.repeat(25_000)}${']'.repeat(25_000)}}`;
  const deep = await edgeRequest(s.port, {
    method: 'POST',
    path: '/oauth/reg',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(nested),
  });
  assert.is(deep.status, 400, deep.text);
  assert.is(JSON.parse(deep.text).error, 'invalid_request');
  assert.match(JSON.parse(deep.text).error_description, /deeper than 128 levels/);
  const big = JSON.stringify({ redirect_uris: ['https://app.example/cb'], client_name: 'x'.repeat(1_000_000) });
  for (let i = 0; i < 5; i++) {
    const a = await edgeRequest(s.port, {
      method: 'POST',
      path: '/oauth/reg',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(big),
    });
    assert.is(a.status, 413, a.text);
    assert.is(JSON.parse(a.text).error, 'invalid_request');
  }
  const viaFetch = await fetch(`${s.url}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
  assert.is(viaFetch.status, 413);
  await alive(s);
});

t('a NUL character in a body string is 400 naming the field; in a path segment 404; in a query value 400', async ({ s }) => {
  const reg = await s.post('/v1/agents/register', { id: 'nul-agent', name: 'a\u0000b' }, admin);
  assert.is(reg.status, 400, reg.text);
  assert.match(reg.body.error, /^body\.name: contains a NUL character/);
  // In a key too; an escaped backslash before `u0000` is text, not a NUL.
  const key = await s.post('/v1/agents/register', { id: 'nul-key', 'x\u0000': 1 }, admin);
  assert.is(key.status, 400, key.text);
  assert.match(key.body.error, /^body\.x\\u0000: contains a NUL character/);
  const text = await s.post('/v1/agents/register', { id: 'nul-text', name: 'a\\u0000b' }, admin);
  assert.is(text.status, 200, text.text);
  // A form's field (%00) likewise, in the route's own error shape (OAuth).
  const form = await fetch(`${s.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=authorization_code&code=a%00b',
  });
  const refusal = (await form.json()) as { error: string; error_description: string };
  assert.is(form.status, 400, JSON.stringify(refusal));
  assert.is(refusal.error, 'invalid_request');
  assert.match(refusal.error_description, /^body\.code: contains a NUL character/);
  for (const method of ['GET', 'DELETE'] as const) {
    const r = await s.req(method, '/v1/rooms/fz%00', { token: admin });
    assert.is(r.status, 404, r.text);
  }
  const cursor = await s.get('/v1/rooms/ops/messages?before=%00', admin);
  assert.is(cursor.status, 400, cursor.text);
  assert.match(cursor.body.error, /^query\.before: /);
});

t.run();
