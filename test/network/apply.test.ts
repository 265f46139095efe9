// POST /v1/apply: reconciling declared rooms and static-token agent bindings on a running server.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;

const declared = () => ({
  network_id: 'testnet',
  agents: [{ id: 'bound', credential_key: 'token:writer' }],
  rooms: [
    {
      id: 'ops-room',
      name: 'Ops',
      members: ['bound', 'svc://testnet/agents/alpha', 'other:beta'],
      visibility: 'private',
      write_policy: 'operators',
    },
    { id: 'plain' },
  ],
});

const t = suite<{ s: AppServer; first: Json }>('applying declared config');
t.before(async (c) => {
  // The memory store: nothing here restarts the server or reads its files.
  c.s = await startApp({ config: { store: { backend: 'memory' }, rooms: [{ id: 'general', members: ['alpha'] }] } });
});
t.after(async (c) => c.s?.dispose());

t('a first apply creates what is declared and answers the applied shape', async (c) => {
  const r = await c.s.post('/v1/apply', declared(), ADMIN);
  assert.is(r.status, 200, r.text);
  c.first = r.body;
  assert.is(r.body.applied, true);
  assert.is(r.body.agents.length, 1);
  assert.equal(Object.keys(r.body.agents[0]).sort(), ['actor_uid', 'actor_uri', 'agent_id', 'network_id']);
  assert.equal(
    { ...r.body.agents[0], actor_uid: 'x' },
    { network_id: 'testnet', agent_id: 'bound', actor_uid: 'x', actor_uri: 'svc://testnet/agents/bound' },
  );
  assert.equal(r.body.rooms, [
    {
      id: 'ops-room',
      network_id: 'testnet',
      fqid: 'svc://testnet/rooms/ops-room',
      name: 'Ops',
      members: ['bound', 'alpha', 'other:beta'],
      visibility: 'private',
      write_policy: 'operators',
    },
    {
      id: 'plain',
      network_id: 'testnet',
      fqid: 'svc://testnet/rooms/plain',
      name: 'plain',
      members: [],
      visibility: 'public',
      write_policy: 'members',
    },
  ]);
  assert.equal(r.body.changes, [
    { kind: 'agent', id: 'bound', action: 'created' },
    { kind: 'room', id: 'ops-room', action: 'created' },
    { kind: 'room', id: 'plain', action: 'created' },
  ]);
  const room = await c.s.get('/v1/rooms/ops-room', ADMIN);
  assert.equal([room.body.visibility, room.body.write_policy], ['private', 'operators']);
});

t('a declared binding makes the static token the owner of the agent id', async ({ s }) => {
  assert.is((await s.post('/v1/messages', roomMessage('ops-room', 'bound', 'x'), TOKENS.writer.value)).status, 200);
  assert.is((await s.post('/v1/messages', roomMessage('ops-room', 'bound', 'x'), ADMIN)).status, 403);
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'bound' }, TOKENS.attacher.value)).status, 409);
});

t('applying the same declaration again reports everything unchanged', async ({ s, first }) => {
  const r = await s.post('/v1/apply', declared(), ADMIN);
  assert.is(r.status, 200, r.text);
  assert.equal(r.body.changes, [
    { kind: 'agent', id: 'bound', action: 'unchanged' },
    { kind: 'room', id: 'ops-room', action: 'unchanged' },
    { kind: 'room', id: 'plain', action: 'unchanged' },
  ]);
  assert.equal(r.body.agents, first.agents);
  assert.equal(r.body.rooms, first.rooms);
});

t('a changed declaration updates rooms in place', async ({ s }) => {
  const d = declared();
  d.rooms[0] = { ...d.rooms[0]!, name: 'Operations', members: ['bound'], visibility: 'public', write_policy: 'members' };
  const r = await s.post('/v1/apply', d, ADMIN);
  assert.is(r.status, 200, r.text);
  assert.equal(
    r.body.changes.map((x: Json) => x.action),
    ['unchanged', 'updated', 'unchanged'],
  );
  const room = (await s.get('/v1/rooms/ops-room', ADMIN)).body;
  assert.equal([room.name, room.members, room.visibility, room.write_policy], ['Operations', ['bound'], 'public', 'members']);
});

t('apply never removes undeclared rooms or agents', async ({ s }) => {
  const r = await s.post('/v1/apply', { network_id: 'testnet', agents: [], rooms: [] }, ADMIN);
  assert.equal(r.body, { applied: true, agents: [], rooms: [], changes: [] });
  const rooms = (await s.get('/v1/rooms', ADMIN)).body.rooms.map((x: Json) => x.id);
  assert.equal(rooms, ['general', 'ops-room', 'plain']);
  assert.is((await s.get('/v1/agents/bound', ADMIN)).status, 200);
  assert.is((await s.post('/v1/apply', { network_id: 'testnet' }, ADMIN)).status, 200, 'agents and rooms default to empty');
});

t('a declared room that was soft-removed is created again', async ({ s }) => {
  await s.req('DELETE', '/v1/rooms/plain', { token: ADMIN });
  const r = await s.post('/v1/apply', { network_id: 'testnet', rooms: [{ id: 'plain' }] }, ADMIN);
  assert.equal(r.body.changes, [{ kind: 'room', id: 'plain', action: 'created' }]);
  assert.is((await s.get('/v1/rooms/plain', ADMIN)).status, 200);
});

t('a network_id that is not this network is refused and changes nothing', async ({ s }) => {
  const r = await s.post('/v1/apply', { ...declared(), network_id: 'elsewhere', rooms: [{ id: 'never' }] }, ADMIN);
  assert.is(r.status, 422);
  assert.is(r.body.code, 'unprocessable_entity');
  assert.match(r.body.error, /^body\.network_id:/);
  assert.is((await s.get('/v1/rooms/never', ADMIN)).status, 404);
});

t('a credential key that names no static token is refused', async ({ s }) => {
  for (const key of ['token:nope', 'agent:abc', 'writer']) {
    const r = await s.post('/v1/apply', { network_id: 'testnet', agents: [{ id: 'x1', credential_key: key }] }, ADMIN);
    assert.is(r.status, 422, key);
    assert.match(r.body.error, /^body\.agents\[0\]\.credential_key:/);
  }
  assert.is((await s.get('/v1/agents/x1', ADMIN)).status, 404);
});

t('binding an id that another credential owns is a 409 and applies nothing', async ({ s }) => {
  const r = await s.post(
    '/v1/apply',
    { network_id: 'testnet', agents: [{ id: 'bound', credential_key: 'token:admin' }], rooms: [{ id: 'not-made' }] },
    ADMIN,
  );
  assert.is(r.status, 409);
  assert.is((await s.get('/v1/rooms/not-made', ADMIN)).status, 404);
});

t('schema and member errors name the field path', async ({ s }) => {
  const missing = await s.post('/v1/apply', { rooms: [] }, ADMIN);
  assert.is(missing.status, 400);
  assert.match(missing.body.error, /^body\.network_id: is required/);
  const policy = await s.post('/v1/apply', { network_id: 'testnet', rooms: [{ id: 'r', write_policy: 'everyone' }] }, ADMIN);
  assert.is(policy.status, 400);
  assert.match(policy.body.error, /^body\.rooms\[0\]\.write_policy: must be one of members, registered_agents, operators/);
  const member = await s.post(
    '/v1/apply',
    { network_id: 'testnet', rooms: [{ id: 'general' }, { id: 'r2', members: ['ok', 'bad member'] }] },
    ADMIN,
  );
  assert.is(member.status, 400);
  assert.match(member.body.error, /^body\.rooms\[1\]\.members\[1\]:/);
  const existing = await s.post('/v1/apply', { network_id: 'testnet', rooms: [{ id: 'general', members: ['a:b:c'] }] }, ADMIN);
  assert.is(existing.status, 400);
  assert.match(existing.body.error, /^body\.rooms\[0\]\.members\[0\]:/);
});

t.run();
