// Agents over HTTP: registration (first claim wins, shown-once tokens), summaries, what an agent
// token may do, and soft removal.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const ATTACH = TOKENS.attacher.value;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

interface Ctx {
  s: AppServer;
  gen: string;
  genReg: Json;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const t = suite<Ctx>('registering agents');
t.before(async (c) => {
  // The memory store: nothing here restarts the server or reads its files.
  c.s = await startApp({
    config: {
      store: { backend: 'memory' },
      auth: { agent_registration: 'open' },
      // gen joins both rooms once it is claimed: a declared member is reserved (test/network/reserved-agents.test.ts).
      rooms: [
        { id: 'general', members: ['alpha'] },
        { id: 'hidden', visibility: 'private', members: [] },
      ],
    },
  });
});
t.after(async (c) => c.s?.dispose());

t('an anonymous open-registration claim returns the record and an agt_v1_ token once', async (c) => {
  const r = await c.s.post('/v1/agents/register', { requested_agent_id: 'gen', name: 'Generated' });
  assert.is(r.status, 200, r.text);
  assert.equal(Object.keys(r.body).sort(), [
    'actor_uid',
    'actor_uri',
    'agent_id',
    'agent_token',
    'created_at',
    'display_name',
    'network_id',
    'updated_at',
  ]);
  assert.is(r.body.network_id, 'testnet');
  assert.is(r.body.agent_id, 'gen');
  assert.is(r.body.actor_uri, 'svc://testnet/agents/gen');
  assert.is(r.body.display_name, 'Generated');
  assert.type(r.body.actor_uid, 'string');
  assert.match(r.body.created_at, ISO);
  assert.match(r.body.agent_token, /^agt_v1_[A-Za-z0-9_-]{20,}$/);
  c.gen = r.body.agent_token;
  c.genReg = r.body;
  for (const room of ['general', 'hidden']) {
    const added = await c.s.req('PATCH', `/v1/rooms/${room}/members`, { token: ADMIN, body: { add: ['gen'] } });
    assert.is(added.status, 200, added.text);
  }
});

t('the same credential registering again gets the same record and no token', async ({ s, gen, genReg }) => {
  const r = await s.post('/v1/agents/register', { requested_agent_id: 'gen' }, gen);
  assert.is(r.status, 200, r.text);
  const { agent_token: _shownOnce, ...rest } = genReg;
  assert.equal(r.body, rest);
});

t('another credential claiming a registered id is a 409; first claim wins', async ({ s }) => {
  for (const token of [undefined, ADMIN, ATTACH]) {
    const r = await s.post('/v1/agents/register', { requested_agent_id: 'gen' }, token);
    assert.is(r.status, 409, token ?? 'anonymous');
    assert.is(r.body.code, 'conflict');
    assert.is(r.body.agent_token, undefined);
  }
  // alpha is bound to the alpha-only token by its allowlist.
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'alpha' }, ATTACH)).status, 409);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'alpha' }, TOKENS.alphaOnly.value)).status, 200);
});

t('the server keeps only a key derived from the token, never the token', async ({ s, gen }) => {
  const secret = gen.slice('agt_v1_'.length);
  for (const f of filesUnder(s.dir)) {
    const bytes = readFileSync(f);
    assert.not.ok(bytes.includes(secret), `${f} holds the token`);
  }
  assert.not.ok(s.output().includes(secret), 'the log holds the token');
  const listed = JSON.stringify((await s.get('/v1/agents', ADMIN)).body);
  assert.not.ok(listed.includes(secret));
});

t('a static token registering gets no token and owns the id under its credential', async ({ s }) => {
  const r = await s.post('/v1/agents/register', { requested_agent_id: 'att-1' }, ATTACH);
  assert.is(r.status, 200, r.text);
  assert.is(r.body.agent_token, undefined);
  assert.is(r.body.display_name, 'att-1');
  const again = await s.post('/v1/agents/register', { requested_agent_id: 'att-1', name: 'ignored on repeat' }, ATTACH);
  assert.equal(again.body, r.body);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'att-1' }, ADMIN)).status, 409);
  assert.is((await s.post('/v1/messages', roomMessage('general', 'att-1', 'x'), ADMIN)).status, 403, 'owned by the attacher token');
});

t('without an id a readable handle is made from the name, and taken handles get a suffix', async ({ s }) => {
  const a = await s.post('/v1/agents/register', { name: 'Research Bot' }, ATTACH);
  assert.equal([a.status, a.body.agent_id, a.body.display_name], [200, 'research-bot', 'Research Bot']);
  const b = await s.post('/v1/agents/register', { name: 'Research Bot' }, ADMIN);
  assert.equal([b.status, b.body.agent_id], [200, 'research-bot-2']);
  const c = await s.post('/v1/agents/register', {}, ADMIN);
  assert.equal([c.status, c.body.agent_id], [200, 'agent']);
});

t('a malformed requested id is a 400 naming the field', async ({ s }) => {
  const r = await s.post('/v1/agents/register', { requested_agent_id: 'no spaces' }, ADMIN);
  assert.is(r.status, 400);
  assert.match(r.body.error, /^body\.requested_agent_id:/);
});

t('an allowlisted token registers only its listed ids', async ({ s }) => {
  const r = await s.post('/v1/agents/register', { requested_agent_id: 'beta' }, TOKENS.alphaOnly.value);
  assert.is(r.status, 403);
});

t('agent summaries carry id, name, actor uid, fqid, network and visible rooms', async ({ s, genReg }) => {
  const r = await s.get('/v1/agents/gen', ADMIN);
  assert.equal(r.body, {
    id: 'gen',
    name: 'Generated',
    actor_uid: genReg.actor_uid,
    fqid: 'svc://testnet/agents/gen',
    network_id: 'testnet',
    rooms: ['general', 'hidden'],
  });
  const noName = (await s.get('/v1/agents/att-1', ADMIN)).body;
  assert.equal(Object.keys(noName).sort(), ['actor_uid', 'fqid', 'id', 'network_id', 'rooms']);
  const list = await s.get('/v1/agents', ADMIN);
  assert.equal(
    list.body.agents.map((a: Json) => a.id),
    ['alpha', 'gen', 'att-1', 'research-bot', 'research-bot-2', 'agent'],
  );
  assert.is((await s.get('/v1/agents/nobody', ADMIN)).status, 404);
});

t('an agent token reads what its agent may see and acts only as that agent', async ({ s, gen }) => {
  assert.is((await s.get('/v1/network', gen)).status, 200);
  assert.is((await s.get('/v1/rooms/hidden', gen)).status, 200, 'gen is a member');
  assert.is((await s.post('/v1/messages', roomMessage('general', 'gen', 'mine'), gen)).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('general', 'alpha', 'not mine'), gen)).status, 403);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'gen-2' }, gen)).status, 403);
  assert.is((await s.post('/v1/rooms', { id: 'by-agent' }, gen)).status, 403);
  assert.is((await s.req('PATCH', '/v1/rooms/general/members', { token: gen, body: { add: ['x'] } })).status, 403);
  assert.is((await s.req('DELETE', '/v1/agents/alpha', { token: gen })).status, 403);
  assert.is((await s.post('/v1/apply', { network_id: 'testnet' }, gen)).status, 403);
});

t('removing an agent is soft: token stops working, rosters drop it, history stays', async ({ s, gen }) => {
  const sent = await s.post('/v1/messages', roomMessage('general', 'gen', 'last words'), gen);
  assert.is(sent.status, 200, sent.text);
  const del = await s.req('DELETE', '/v1/agents/gen', { token: ADMIN });
  assert.is(del.status, 200, del.text);
  assert.equal(del.body, { removed: true, kind: 'agent', id: 'gen', mode: 'soft' });

  const after = await s.get('/v1/network', gen);
  assert.is(after.status, 401);
  assert.is(after.body.code, 'unauthorized');
  assert.is((await s.post('/v1/messages', roomMessage('general', 'gen', 'ghost'), gen)).status, 401);
  assert.is((await s.get('/v1/agents/gen', ADMIN)).status, 404);
  assert.not.ok((await s.get('/v1/agents', ADMIN)).body.agents.some((a: Json) => a.id === 'gen'));
  assert.equal((await s.get('/v1/rooms/general', ADMIN)).body.members, ['alpha']);
  assert.equal((await s.get('/v1/rooms/hidden', ADMIN)).body.members, []);
  const h = (await s.get('/v1/rooms/general/messages', ADMIN)).body.messages as Json[];
  assert.ok(
    h.some((m) => m.id === sent.body.message_id),
    'history kept',
  );
  assert.is((await s.req('DELETE', '/v1/agents/gen', { token: ADMIN })).status, 404);
});

t('a removed id can be claimed again, and the old token stays invalid', async ({ s, gen }) => {
  const r = await s.post('/v1/agents/register', { requested_agent_id: 'gen' });
  assert.is(r.status, 200, r.text);
  assert.is.not(r.body.agent_token, gen);
  assert.is((await s.get('/v1/network', r.body.agent_token)).status, 200);
  assert.is((await s.get('/v1/network', gen)).status, 401);
});

t('removing an unregistered id that is only a room member takes it out of rooms', async ({ s }) => {
  await s.post('/v1/rooms', { id: 'roster', members: ['ghost', 'alpha'] }, ADMIN);
  const r = await s.req('DELETE', '/v1/agents/ghost', { token: ADMIN });
  assert.is(r.status, 200, r.text);
  assert.equal((await s.get('/v1/rooms/roster', ADMIN)).body.members, ['alpha']);
});

t.run();
