// The body edge on PostgreSQL, beside the memory store: an inbound hook's body nested 6,000 deep
// (which made the Postgres server exit) is refused and stores nothing; text no backend can hold (a
// NUL byte, invalid UTF-8) in a path segment, a cursor or a body string gets the same clean answer
// on both backends (before, Postgres answered 500 internal_error).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgServer } from '../helpers/pg-server.js';
import { startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { deepBody, edgeRequest } from './edge-client.js';

const admin = TOKENS.admin.value;
const SECRET = 'ci-hook-secret-0123456789';
const env = { CI_HOOK_SECRET: SECRET };
const config = {
  rooms: [{ id: 'ops', members: ['ci', 'beta'] }],
  inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci', sender_name: 'CI', secret_env: 'CI_HOOK_SECRET' }],
};

const t = suite<{ pg: TestServer; mem: TestServer; schema: PgSchema }>('the body edge on PostgreSQL and memory');
t.before(async (c) => {
  c.schema = await freshSchema();
  c.pg = await startPgServer(c.schema, config, { env });
  c.mem = await startServer({ config: { ...config, store: { backend: 'memory' } }, env });
  for (const s of [c.pg, c.mem]) {
    const r = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'ops' }, from: { type: 'agent', id: 'beta' }, parts: [{ kind: 'text', text: 'before' }] },
      admin,
    );
    assert.is(r.status, 200, r.text);
  }
});
t.after(async (c) => {
  await c.pg?.dispose();
  await c.mem?.dispose();
  await c.schema?.drop();
});

const both = (c: { pg: TestServer; mem: TestServer }) =>
  [
    ['postgres', c.pg],
    ['memory', c.mem],
  ] as const;

async function history(s: TestServer): Promise<Json[]> {
  const r = await s.get('/v1/rooms/ops/messages', admin);
  assert.is(r.status, 200, r.text);
  return r.body.messages.map((m: { parts: { text?: string }[] }) => m.parts[0]?.text);
}

t('an inbound hook body nested 6,000 deep is 400; the server stays up, nothing is stored, history still reads', async (c) => {
  for (const [name, s] of both(c)) {
    const a = await edgeRequest(s.port, {
      method: 'POST',
      path: '/v1/hooks/ci',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
      body: deepBody(),
    });
    assert.is(a.status, 400, `${name}: ${a.text}`);
    assert.match(a.text, /deeper than 128 levels/);
    // The fast lane drains after the answer: give it the time it had to crash the process before.
    const h = await s.get('/healthz');
    assert.is(h.status, 200, `${name}: ${h.text}`);
    assert.equal(await history(s), ['before'], name);
    assert.is(s.proc.exitCode, null, `${name}: the server exited`);
    // The hook still works for a good body.
    const ok = await s.req('POST', '/v1/hooks/ci', { token: SECRET, body: { text: 'after' } });
    assert.is(ok.status, 200, `${name}: ${ok.text}`);
  }
});

/** What each backend answers; both must agree and neither may answer 5xx. */
async function sameOnBoth(c: { pg: TestServer; mem: TestServer }, method: string, path: string, body?: Json): Promise<Json> {
  const got: { status: number; body: Json }[] = [];
  for (const [, s] of both(c)) {
    const r = await s.req(method, path, { token: admin, ...(body !== undefined ? { body } : {}) });
    got.push({ status: r.status, body: r.body });
  }
  const [pg, mem] = got as [{ status: number; body: Json }, { status: number; body: Json }];
  assert.ok(pg.status < 500, `${method} ${path} on postgres: ${pg.status} ${JSON.stringify(pg.body)}`);
  assert.is(pg.status, mem.status, `${method} ${path}: postgres ${pg.status} ${JSON.stringify(pg.body)}, memory ${mem.status}`);
  assert.is(pg.body?.error, mem.body?.error, `${method} ${path}`);
  return pg;
}

t('a NUL in a room id is unknown (404) on both: GET and DELETE /v1/rooms/fz%00', async (c) => {
  for (const method of ['GET', 'DELETE']) {
    const r = await sameOnBoth(c, method, '/v1/rooms/fz%00');
    assert.is(r.status, 404);
  }
  // An undecodable segment (invalid UTF-8) too.
  assert.is((await sameOnBoth(c, 'GET', '/v1/rooms/fz%FF')).status, 404);
});

t('before= and after= cursors of a NUL or random bytes answer alike on both, never 500', async (c) => {
  for (const k of ['before', 'after']) {
    const nul = await sameOnBoth(c, 'GET', `/v1/rooms/ops/messages?${k}=%00`);
    assert.is(nul.status, 400);
    assert.match(nul.body.error, new RegExp(`^query\\.${k}: contains a NUL`));
    for (const junk of ['%FF%FE%FD', 'ab%00cd', '%C3%28', '%E2%82', '%F0%9F%92%A9%00', '%ED%A0%BD']) {
      await sameOnBoth(c, 'GET', `/v1/rooms/ops/messages?${k}=${junk}`);
    }
  }
});

t('a NUL inside a body string is 400 naming the field on both (agent name, message text)', async (c) => {
  const reg = await sameOnBoth(c, 'POST', '/v1/agents/register', { id: 'nul-agent', name: 'a\u0000b' });
  assert.is(reg.status, 400);
  assert.match(reg.body.error, /^body\.name: contains a NUL character/);
  const send = await sameOnBoth(c, 'POST', '/v1/messages', {
    target: { kind: 'room', room_id: 'ops' },
    from: { type: 'agent', id: 'beta' },
    parts: [{ kind: 'text', text: 'x\u0000y' }],
  });
  assert.is(send.status, 400);
  assert.match(send.body.error, /^body\.parts\[0\]\.text: contains a NUL character/);
  for (const [name, s] of both(c)) assert.equal(await history(s), ['before', 'after'], name);
});

t.run();
