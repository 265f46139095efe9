// A message the caller may not see answers every per-message route exactly as an id that does not
// exist (#38 item 8): same status, code and message, byte for byte but for the id. Before, a
// reaction to a private room's message answered 403 "mallory is not a member of room priv" (or 404
// "room priv not found") and receipts 401 "room priv is not public", telling the id exists and where.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Res } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const MALLORY = { id: 'mallory-token', value: 'tok-mallory-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['mallory'] };
const MISSING = 'msg_01nothinghere00000000000000';
const REQUEST_ID = 'req-visibility-check';

interface Ctx {
  s: AppServer;
  priv: string;
  dm: string;
  pub: string;
}

const test = suite<Ctx>('per-message routes and messages the caller may not see');
test.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      store: { backend: 'memory' },
      auth: { public_read: true, tokens: [...Object.values(TOKENS), MALLORY] },
      rooms: [
        { id: 'priv', visibility: 'private', members: ['alice'] },
        { id: 'pub', members: ['alice'] },
      ],
    },
  });
  const send = async (body: Record<string, unknown>) => {
    const r = await ctx.s.post('/v1/messages', body, ADMIN);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  ctx.priv = await send(roomMessage('priv', 'alice', 'the private plan'));
  ctx.pub = await send(roomMessage('pub', 'alice', 'the public note'));
  ctx.dm = await send({
    target: { kind: 'dm', participant_ids: ['alice', 'bob'] },
    from: { type: 'agent', id: 'alice' },
    parts: [{ kind: 'text', text: 'between us' }],
  });
});
test.after(async (ctx) => ctx.s?.dispose());

const enc = encodeURIComponent;
const FROM = { from: { type: 'agent', id: 'mallory' } };
type Call = { name: string; method: string; path: (id: string) => string; token?: string; body?: unknown };
const calls: Call[] = [
  { name: 'react', method: 'PUT', path: (id) => `/v1/messages/${enc(id)}/reactions/${enc('👍')}`, token: MALLORY.value, body: FROM },
  { name: 'unreact', method: 'DELETE', path: (id) => `/v1/messages/${enc(id)}/reactions/${enc('👍')}`, token: MALLORY.value, body: FROM },
  {
    name: 'react (write-only token)',
    method: 'PUT',
    path: (id) => `/v1/messages/${enc(id)}/reactions/${enc('👍')}`,
    token: TOKENS.writer.value,
    body: FROM,
  },
  { name: 'reactions', method: 'GET', path: (id) => `/v1/messages/${enc(id)}/reactions`, token: MALLORY.value },
  { name: 'reactions (anonymous)', method: 'GET', path: (id) => `/v1/messages/${enc(id)}/reactions` },
  { name: 'receipts', method: 'GET', path: (id) => `/v1/messages/${enc(id)}/receipts`, token: MALLORY.value },
  { name: 'receipts (anonymous)', method: 'GET', path: (id) => `/v1/messages/${enc(id)}/receipts` },
  { name: 'mark read', method: 'POST', path: (id) => `/v1/messages/${enc(id)}/read?as=mallory`, token: MALLORY.value },
];

const call = (s: AppServer, c: Call, id: string): Promise<Res> =>
  s.req(c.method, c.path(id), {
    ...(c.token ? { token: c.token } : {}),
    ...(c.body !== undefined ? { body: c.body } : {}),
    headers: { 'x-request-id': REQUEST_ID },
  });

/** What a client sees of an answer, with the message id written as ID. */
const seen = (r: Res, id: string) => ({
  status: r.status,
  type: r.headers.get('content-type'),
  text: r.text.split(id).join('ID'),
});

for (const which of ['priv', 'dm'] as const) {
  test(`a message in a ${which === 'priv' ? 'private room' : 'DM'} answers as a missing id on every per-message route`, async (ctx) => {
    for (const c of calls) {
      const hidden = await call(ctx.s, c, ctx[which]);
      const missing = await call(ctx.s, c, MISSING);
      assert.equal(seen(hidden, ctx[which]), seen(missing, MISSING), c.name);
      if (c.method !== 'GET' || c.token !== undefined) {
        assert.is(missing.status, 404, `${c.name}: ${missing.text}`);
        assert.is(missing.body.code, 'not_found', c.name);
      }
    }
  });
}

test('a caller who sees the message still gets the refusal that says why', async (ctx) => {
  // pub is public and its write policy is members: mallory sees it and is told she is no member.
  const r = await call(ctx.s, calls[0]!, ctx.pub);
  assert.is(r.status, 403, r.text);
  assert.match(r.body.error, /mallory is not a member of room pub/);
  // A member reacts in the private room as before.
  const ok = await ctx.s.req('PUT', `/v1/messages/${enc(ctx.priv)}/reactions/${enc('👍')}`, {
    token: ADMIN,
    body: { from: { type: 'agent', id: 'alice' } },
  });
  assert.is(ok.status, 200, ok.text);
  const receipts = await ctx.s.get(`/v1/messages/${enc(ctx.priv)}/receipts`, ADMIN);
  assert.is(receipts.status, 200, receipts.text);
});

test.run();
