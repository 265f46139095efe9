import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const SECRET = 'ci-hook-secret-0123456789';
const admin = TOKENS.admin.value;

const config = (limits?: Record<string, unknown>) => ({
  rooms: [{ id: 'ops', members: ['ci'] }],
  inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci', sender_name: 'CI', secret_env: 'CI_HOOK_SECRET' }],
  ...(limits ? { server: { limits } } : {}),
});

const test = suite('inbound hooks');
let s: AppServer;
test.before(async () => {
  s = await startApp({ config: config(), env: { CI_HOOK_SECRET: SECRET } });
});
test.after(async () => {
  await s.dispose();
});

test('a good bearer secret posts {text} into the room as the hook sender', async () => {
  const r = await s.req('POST', '/v1/hooks/ci', { token: SECRET, body: { text: 'build 42 passed' } });
  assert.is(r.status, 200, r.text);
  const hist = await s.get('/v1/rooms/ops/messages', admin);
  const m = hist.body.messages.find((x: { id: string }) => x.id === r.body.message_id);
  assert.ok(m);
  assert.is(m.from.id, 'ci');
  assert.is(m.from.name, 'CI');
  assert.equal(m.parts, [{ kind: 'text', text: 'build 42 passed' }]);
});

test('a Standard Webhooks signature made with the secret posts full parts', async () => {
  const body = JSON.stringify({
    parts: [
      { kind: 'text', text: 'signed' },
      { kind: 'url', url: 'https://ci.example/42' },
    ],
  });
  const wh = new Webhook(new Uint8Array(Buffer.from(SECRET)), { format: 'raw' });
  const at = new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': wh.sign('msg_1', at, body),
  };
  const r = await s.req('POST', '/v1/hooks/ci', { raw: body, headers });
  assert.is(r.status, 200, r.text);
  const bad = await s.req('POST', '/v1/hooks/ci', { raw: body.replace('signed', 'forged'), headers });
  assert.is(bad.status, 401);
});

test('a body without text or parts is refused 400 with the field', async () => {
  const r = await s.req('POST', '/v1/hooks/ci', { token: SECRET, body: { message: 'x' } });
  assert.is(r.status, 400);
  assert.match(JSON.stringify(r.body), /needs text/);
});

test('svc webhooks list shows the inbound hook (never its secret)', async () => {
  const r = await s.get('/v1/webhooks', admin);
  assert.equal(r.body.inbound_hooks, [{ id: 'ci', room: 'ops', sender: 'ci', sender_name: 'CI', path: '/v1/hooks/ci', source: 'config' }]);
  assert.not.match(r.text, SECRET);
});

test('a bad secret (or an unknown hook) is refused 401 and counted toward the per-address failed-auth limit', async () => {
  const limited = await startApp({ config: config({ auth_failures_per_minute: 3 }), env: { CI_HOOK_SECRET: SECRET } });
  try {
    for (let i = 0; i < 3; i++) {
      const r = await limited.req('POST', i === 2 ? '/v1/hooks/nope' : '/v1/hooks/ci', { token: 'wrong', body: { text: 'x' } });
      assert.is(r.status, 401, r.text);
    }
    const fourth = await limited.req('POST', '/v1/hooks/ci', { token: 'wrong', body: { text: 'x' } });
    assert.is(fourth.status, 429);
    // The good secret still works: only failures are refused.
    const good = await limited.req('POST', '/v1/hooks/ci', { token: SECRET, body: { text: 'still fine' } });
    assert.is(good.status, 200, good.text);
  } finally {
    await limited.dispose();
  }
});

test.run();
