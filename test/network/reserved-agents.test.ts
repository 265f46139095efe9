// Reserved agent ids (#38 item 6): under open registration nobody may self-register an id svc.yaml
// or an operator named before any agent claimed it (room members, inbound hook senders, token
// allowlists); the operator's own credentials still may, and the refusal says why.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rejectedIdentify } from '../helpers/live.js';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const HOOK_SECRET = 'ci-hook-secret-0123456789';
const OPS_BOT = { id: 'ops-bot', value: 'tok-opsbot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['tokbot'] };

const test = suite<{ s: AppServer }>('reserved agent ids');
test.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      store: { backend: 'memory' },
      auth: { agent_registration: 'open', tokens: [...Object.values(TOKENS), OPS_BOT] },
      rooms: [
        { id: 'general', members: ['helper'] },
        { id: 'priv', visibility: 'private', members: ['deploybot', 'testnet:ops-lead'] },
        { id: 'ops', members: ['ci'] },
      ],
      inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci', secret_env: 'CI_HOOK_SECRET' }],
    },
    env: { CI_HOOK_SECRET: HOOK_SECRET },
  });
});
test.after(async (ctx) => ctx.s?.dispose());

const claim = (s: AppServer, id: string, token?: string) => s.post('/v1/agents/register', { requested_agent_id: id }, token);

test('a stranger cannot claim a declared member of a private room; the refusal says why and names no private room', async ({ s }) => {
  for (const id of ['deploybot', 'ops-lead']) {
    const r = await claim(s, id);
    assert.is(r.status, 409, r.text);
    assert.is(r.body.code, 'agent_reserved');
    assert.match(r.body.error, new RegExp(`^agent id ${id} is reserved \\(a declared member of a private room\\)`));
    assert.match(r.body.error, /operator/);
    assert.not.match(r.body.error, /\bpriv\b/, 'the refusal names no private room');
    assert.is(r.body.agent_token, undefined);
  }
  assert.is((await s.get('/v1/agents/deploybot', ADMIN)).status, 404, 'nothing was registered');
  // A public room's member is reserved too (its write policy lets members write), and says which room.
  const helper = await claim(s, 'helper');
  assert.is(helper.status, 409);
  assert.match(helper.body.error, /a declared member of room general/);
});

test('an anonymous attachment cannot claim a reserved id either: IDENTIFY is refused before READY', async ({ s }) => {
  const r = await rejectedIdentify(s, { network_id: 'testnet', agent: { id: 'deploybot' } });
  assert.is(r.error.op, 'ERROR');
  assert.is(r.error.code, 'forbidden');
  assert.match(r.error.error, /^agent id deploybot is reserved \(a declared member of a private room\)/);
  assert.not.ok(r.frames.some((f) => f.op === 'READY'));
});

test("a stranger cannot claim an inbound hook's sender: the hook keeps posting", async ({ s }) => {
  const r = await claim(s, 'ci');
  assert.is(r.status, 409, r.text);
  assert.is(r.body.code, 'agent_reserved');
  assert.match(r.body.error, /the sender of an inbound hook/);
  const hook = await s.req('POST', '/v1/hooks/ci', { token: HOOK_SECRET, body: { text: 'build 7 passed' } });
  assert.is(hook.status, 200, hook.text);
});

test('ids an operator names later are reserved as well: rooms made over HTTP, members added, hooks applied', async ({ s }) => {
  assert.is((await s.post('/v1/rooms', { id: 'made', visibility: 'private', members: ['made-bot'] }, ADMIN)).status, 200);
  assert.is((await s.req('PATCH', '/v1/rooms/ops/members', { token: ADMIN, body: { add: ['added-bot'] } })).status, 200);
  const applied = await s.post(
    '/v1/apply',
    { network_id: 'testnet', inbound_hooks: [{ id: 'cd', room: 'ops', sender: 'cd-bot', secret: 'cd-hook-secret-0123456789' }] },
    ADMIN,
  );
  assert.is(applied.status, 200, applied.text);
  for (const id of ['made-bot', 'added-bot', 'cd-bot']) {
    const r = await claim(s, id);
    assert.is(r.status, 409, `${id}: ${r.text}`);
    assert.is(r.body.code, 'agent_reserved', id);
  }
  // An id nobody named is still open to the first claim.
  const free = await claim(s, 'newcomer');
  assert.is(free.status, 200, free.text);
  assert.match(free.body.agent_token, /^agt_v1_/);
});

test('a handle made from a name keeps off reserved ids', async ({ s }) => {
  const r = await s.post('/v1/agents/register', { name: 'Deploybot' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.agent_id, 'deploybot-2');
});

test('credentials the operator issued may register a reserved id', async ({ s }) => {
  // An id in a token's agents list is bound to that token from the start (svc.yaml's declaration).
  const byToken = await claim(s, 'tokbot', OPS_BOT.value);
  assert.is(byToken.status, 200, byToken.text);
  assert.is((await claim(s, 'tokbot')).status, 409);
  const byOperator = await claim(s, 'deploybot', ADMIN);
  assert.is(byOperator.status, 200, byOperator.text);
  // Once registered, the id is an ordinary claimed one: another credential gets the usual 409.
  const late = await claim(s, 'deploybot');
  assert.is(late.status, 409);
  assert.is(late.body.code, 'conflict');
});

test.run();
