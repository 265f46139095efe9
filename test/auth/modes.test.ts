// auth.mode none / bearer / open, and agent_registration under bearer.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const none = suite<{ s: AppServer }>('auth.mode none');
none.before(async (c) => {
  c.s = await startApp({
    config: {
      auth: { mode: 'none', public_read: false, agent_registration: 'disabled', tokens: [] },
      rooms: [{ id: 'secret', visibility: 'private', members: ['alpha'] }],
    },
  });
});
none.after(async (c) => c.s?.dispose());

none('needs no credentials for reads, admin actions or sends as any agent', async ({ s }) => {
  assert.is((await s.get('/v1/rooms/secret')).status, 200);
  assert.is((await s.post('/v1/rooms', { id: 'made', members: ['beta'] })).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('secret', 'alpha', 'hi'))).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('made', 'beta', 'hi'))).status, 200);
  const dm = await s.post('/v1/messages', {
    target: { kind: 'dm', participant_ids: ['beta'] },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'x' }],
  });
  assert.is(dm.status, 200, dm.text);
  assert.is((await s.get('/v1/dms')).body.dms.length, 1);
  assert.is((await s.post('/v1/apply', { network_id: 'testnet' })).status, 200);
});

none('registration binds ids to the anonymous identity, idempotently, and returns no token', async ({ s }) => {
  const a = await s.post('/v1/agents/register', { requested_agent_id: 'solo' });
  assert.is(a.status, 200, a.text);
  assert.is(a.body.agent_token, undefined);
  const b = await s.post('/v1/agents/register', { requested_agent_id: 'solo' });
  assert.equal(b.body, a.body);
  assert.is((await s.post('/v1/messages', roomMessage('made', 'solo', 'x'))).status, 200, 'members policy does not bind mode none');
});

none('ignores an Authorization header: there is nothing to check it against', async ({ s }) => {
  assert.is((await s.get('/v1/rooms', 'whatever-token')).status, 200);
});

none('lets human messages through and says so in the network document', async ({ s }) => {
  assert.is(
    (
      await s.post('/v1/messages', {
        target: { kind: 'room', room_id: 'made' },
        from: { type: 'human', id: 'pat' },
        parts: [{ kind: 'text', text: 'x' }],
      })
    ).status,
    200,
  );
  assert.is((await s.get('/v1/network')).body.console.can_send_human, true);
});

const bearer = suite<{ s: AppServer }>('auth.mode bearer with registration disabled');
bearer.before(async (c) => {
  c.s = await startApp({
    config: { auth: { mode: 'bearer', agent_registration: 'disabled' }, rooms: [{ id: 'general', members: ['alpha'] }] },
  });
});
bearer.after(async (c) => c.s?.dispose());

bearer('refuses anonymous callers everywhere except health', async ({ s }) => {
  for (const p of ['/v1/network', '/v1/rooms', '/v1/rooms/general', '/v1/agents']) assert.is((await s.get(p)).status, 401, p);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'x' })).status, 401);
  assert.is((await s.get('/healthz')).status, 200);
});

bearer('lets only admins and allowlisted ids register', async ({ s }) => {
  const att = await s.post('/v1/agents/register', { requested_agent_id: 'newbie' }, TOKENS.attacher.value);
  assert.is(att.status, 403);
  assert.match(att.body.error, /disabled/);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'newbie' }, TOKENS.admin.value)).status, 200);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'alpha' }, TOKENS.alphaOnly.value)).status, 200);
});

bearer('a loopback bearer server raises no operator warnings', async ({ s }) => {
  const d = (await s.get('/v1/network', TOKENS.observer.value)).body;
  assert.equal(d.warnings, []);
});

const open = suite<{ s: AppServer; token: string }>('auth.mode open without static tokens');
open.before(async (c) => {
  c.s = await startApp({
    config: {
      auth: { mode: 'open', public_read: true, agent_registration: 'open', tokens: [] },
      rooms: [
        { id: 'lobby', write_policy: 'registered_agents', members: [] },
        { id: 'club', members: ['member'] },
        { id: 'vault', visibility: 'private', members: ['member'] },
      ],
    },
  });
});
open.after(async (c) => c.s?.dispose());

open('forces public read: anonymous callers read public rooms, never private ones or DMs', async ({ s }) => {
  assert.equal(
    (await s.get('/v1/rooms')).body.rooms.map((r: Json) => r.id),
    ['lobby', 'club'],
  );
  assert.is((await s.get('/v1/rooms/lobby/messages')).status, 200);
  assert.is((await s.get('/v1/network')).status, 200);
  assert.is((await s.get('/v1/rooms/vault')).status, 401);
  assert.is((await s.get('/v1/dms')).status, 401);
});

open('forces open registration: an anonymous claim returns a token once', async (c) => {
  const r = await c.s.post('/v1/agents/register', { name: 'Helper Bot' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.agent_id, 'helper-bot');
  assert.match(r.body.agent_token, /^agt_v1_/);
  c.token = r.body.agent_token;
  assert.is((await c.s.post('/v1/agents/register', { requested_agent_id: 'helper-bot' })).status, 409);
});

open('a registered agent writes where registered agents may, and only there', async ({ s, token }) => {
  assert.is((await s.post('/v1/messages', roomMessage('lobby', 'helper-bot', 'hello'), token)).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('club', 'helper-bot', 'hello'), token)).status, 403);
  assert.is((await s.post('/v1/messages', roomMessage('lobby', 'helper-bot', 'hello'))).status, 401, 'public read is not public write');
});

open('without a static admin token no admin action is possible', async ({ s, token }) => {
  for (const t of [undefined, token]) {
    const want = t ? 403 : 401;
    assert.is((await s.post('/v1/rooms', { id: 'x' }, t)).status, want);
    assert.is((await s.req('DELETE', '/v1/rooms/lobby', { ...(t ? { token: t } : {}) })).status, want);
    assert.is((await s.post('/v1/apply', { network_id: 'testnet' }, t)).status, want);
  }
});

open('any other bearer token is invalid, not anonymous', async ({ s }) => {
  assert.is((await s.get('/v1/rooms', 'tok-admin-0123456789')).status, 401);
});

none.run();
bearer.run();
open.run();
