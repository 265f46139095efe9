// Rooms over HTTP: create, read, list, members, soft removal, and allowlist filtering.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const ids = (list: { id: string }[]) => list.map((x) => x.id);

// One server for the file. The allowlist tests run first, against the declared rooms only.
const t = suite<{ s: AppServer }>('rooms');
t.before(async (c) => {
  // The memory store: nothing here restarts the server or reads its files.
  c.s = await startApp({
    config: {
      store: { backend: 'memory' },
      rooms: [
        { id: 'general', name: 'General', members: ['alpha'] },
        { id: 'p1', visibility: 'private', members: ['beta'] },
        { id: 'pub1', members: [] },
        { id: 'p2', visibility: 'private', members: ['alpha'] },
        { id: 'p3', visibility: 'private', members: ['other:alpha'] },
        { id: 'p4', visibility: 'private', members: ['testnet:alpha', 'beta'] },
        { id: 'pub2', members: ['beta'] },
        { id: 'p5', visibility: 'private', members: ['gamma'] },
      ],
    },
  });
});
t.after(async (c) => c.s?.dispose());

const ALPHA = TOKENS.alphaOnly.value;

t('through an allowlist: public rooms and private rooms where an allowed agent is a member', async ({ s }) => {
  const r = await s.get('/v1/rooms', ALPHA);
  assert.equal(ids(r.body.rooms), ['general', 'pub1', 'p2', 'p4', 'pub2']);
  assert.equal(ids((await s.get('/v1/rooms', TOKENS.observer.value)).body.rooms), [
    'general',
    'p1',
    'pub1',
    'p2',
    'p3',
    'p4',
    'pub2',
    'p5',
  ]);
});

t('through an allowlist: pages count only visible rooms, the filter runs before pagination', async ({ s }) => {
  const first = await s.get('/v1/rooms?limit=2', ALPHA);
  assert.equal(ids(first.body.rooms), ['p4', 'pub2']);
  assert.equal(first.body.page, { has_more: true, next_before: 'p4' });
  const second = await s.get(`/v1/rooms?limit=2&before=${first.body.page.next_before}`, ALPHA);
  assert.equal(ids(second.body.rooms), ['pub1', 'p2']);
  assert.equal(second.body.page, { has_more: true, next_before: 'pub1' });
  const third = await s.get(`/v1/rooms?limit=2&before=${second.body.page.next_before}`, ALPHA);
  assert.equal(ids(third.body.rooms), ['general']);
  assert.equal(third.body.page, { has_more: false });
  const after = await s.get('/v1/rooms?limit=2&after=pub1', ALPHA);
  assert.equal(ids(after.body.rooms), ['p2', 'p4']);
});

t('through an allowlist: a hidden room is not a usable cursor and reads as not found', async ({ s }) => {
  const r = await s.get('/v1/rooms?before=p5', ALPHA);
  assert.is(r.status, 422);
  assert.is(r.body.code, 'unprocessable_entity');
  assert.is((await s.get('/v1/rooms/p1', ALPHA)).status, 404);
  assert.is((await s.get('/v1/rooms/p3', ALPHA)).status, 404, 'other:alpha is a remote agent, not local alpha');
  assert.is((await s.get('/v1/rooms/p4', ALPHA)).status, 200);
});

t('a pair credential lists public rooms only (no federation configured)', async ({ s }) => {
  assert.equal(ids((await s.get('/v1/rooms', TOKENS.pair.value)).body.rooms), ['general', 'pub1', 'pub2']);
});

t('creating a room returns the full room with public visibility and members policy by default', async ({ s }) => {
  const r = await s.post('/v1/rooms', { id: 'lab', name: 'Lab', members: ['alpha', 'beta'] }, ADMIN);
  assert.is(r.status, 200, r.text);
  assert.equal(Object.keys(r.body).sort(), ['created_at', 'fqid', 'id', 'members', 'name', 'network_id', 'visibility', 'write_policy']);
  assert.equal(
    { ...r.body, created_at: 'x' },
    {
      id: 'lab',
      network_id: 'testnet',
      fqid: 'svc://testnet/rooms/lab',
      name: 'Lab',
      members: ['alpha', 'beta'],
      visibility: 'public',
      write_policy: 'members',
      created_at: 'x',
    },
  );
  assert.match(r.body.created_at, ISO);
  assert.equal((await s.get('/v1/rooms/lab', TOKENS.observer.value)).body, r.body);
});

t('a room without a name is named by its id, and visibility and write policy may be given', async ({ s }) => {
  const r = await s.post('/v1/rooms', { id: 'quiet', visibility: 'private', write_policy: 'operators' }, ADMIN);
  assert.is(r.status, 200, r.text);
  assert.is(r.body.name, 'quiet');
  assert.equal(r.body.members, []);
  assert.is(r.body.visibility, 'private');
  assert.is(r.body.write_policy, 'operators');
});

t('members are stored bare when local and scoped when remote, without duplicates', async ({ s }) => {
  const r = await s.post(
    '/v1/rooms',
    { id: 'mixed', members: ['alpha', 'testnet:alpha', 'svc://testnet/agents/beta', 'other:gamma', 'svc://other/agents/delta'] },
    ADMIN,
  );
  assert.is(r.status, 200, r.text);
  assert.equal(r.body.members, ['alpha', 'beta', 'other:gamma', 'other:delta']);
});

t('an invalid member or room id is a 400 naming the field', async ({ s }) => {
  const bad = await s.post('/v1/rooms', { id: 'bad1', members: ['alpha', 'not an id'] }, ADMIN);
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'bad_request');
  assert.match(bad.body.error, /^body\.members\[1\]:/);
  const badId = await s.post('/v1/rooms', { id: '-nope' }, ADMIN);
  assert.is(badId.status, 400);
  assert.match(badId.body.error, /^body\.id:/);
  const missing = await s.post('/v1/rooms', { name: 'x' }, ADMIN);
  assert.is(missing.status, 400);
  assert.match(missing.body.error, /^body\.id: is required/);
});

t('creating a room that exists is a 409 conflict', async ({ s }) => {
  const r = await s.post('/v1/rooms', { id: 'general' }, ADMIN);
  assert.is(r.status, 409);
  assert.is(r.body.code, 'conflict');
});

t('an unknown room is a 404 not_found envelope on every room route', async ({ s }) => {
  for (const [m, p] of [
    ['GET', '/v1/rooms/nope'],
    ['GET', '/v1/rooms/nope/messages'],
    ['GET', '/v1/rooms/nope/threads'],
    ['DELETE', '/v1/rooms/nope'],
  ] as const) {
    const r = await s.req(m, p, { token: ADMIN });
    assert.is(r.status, 404, `${m} ${p}`);
    assert.is(r.body.code, 'not_found');
  }
  const patch = await s.req('PATCH', '/v1/rooms/nope/members', { token: ADMIN, body: { add: ['x'] } });
  assert.is(patch.status, 404);
});

t('listing rooms returns them in creation order with a page', async ({ s }) => {
  const r = await s.get('/v1/rooms', ADMIN);
  assert.is(r.status, 200);
  assert.equal(ids(r.body.rooms), ['general', 'p1', 'pub1', 'p2', 'p3', 'p4', 'pub2', 'p5', 'lab', 'quiet', 'mixed']);
  assert.equal(r.body.page, { has_more: false });
  const first = r.body.rooms[0];
  // general is declared in the test's svc.yaml: it carries what the file declares (additive).
  assert.equal(Object.keys(first).sort(), [
    'created_at',
    'declared_by_config',
    'fqid',
    'id',
    'members',
    'name',
    'network_id',
    'visibility',
    'write_policy',
  ]);
});

t('updating members adds and removes and returns the updated room', async ({ s }) => {
  const r = await s.req('PATCH', '/v1/rooms/lab/members', {
    token: ADMIN,
    body: { add: ['gamma', 'svc://testnet/agents/delta', 'alpha'], remove: ['beta', 'nobody'] },
  });
  assert.is(r.status, 200, r.text);
  assert.equal(r.body.members, ['alpha', 'gamma', 'delta']);
  const same = await s.req('PATCH', '/v1/rooms/lab/members', { token: ADMIN, body: {} });
  assert.equal(same.body.members, ['alpha', 'gamma', 'delta']);
  const bad = await s.req('PATCH', '/v1/rooms/lab/members', { token: ADMIN, body: { add: ['ok', 'a:b:c'] } });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /^body\.add\[1\]:/);
});

t('a room is soft-removed: gone from lists and reads, refused for sends, history kept', async ({ s }) => {
  assert.is((await s.post('/v1/rooms', { id: 'doomed', members: ['ops'] }, ADMIN)).status, 200);
  const m = await s.post('/v1/messages', roomMessage('doomed', 'ops', 'before removal'), ADMIN);
  assert.is(m.status, 200, m.text);
  const th = await s.post(
    '/v1/messages',
    { ...roomMessage('doomed', 'ops', 'threaded'), target: { kind: 'thread', room_id: 'doomed', thread_id: 'doomed-t' } },
    ADMIN,
  );
  assert.is(th.status, 200, th.text);

  const del = await s.req('DELETE', '/v1/rooms/doomed', { token: ADMIN });
  assert.is(del.status, 200, del.text);
  assert.equal(del.body, { removed: true, kind: 'room', id: 'doomed', mode: 'soft' });

  assert.not.ok(ids((await s.get('/v1/rooms', ADMIN)).body.rooms).includes('doomed'));
  for (const p of [
    '/v1/rooms/doomed',
    '/v1/rooms/doomed/messages',
    '/v1/rooms/doomed/threads',
    '/v1/threads/doomed-t',
    '/v1/threads/doomed-t/messages',
  ]) {
    assert.is((await s.get(p, ADMIN)).status, 404, p);
  }
  assert.is((await s.post('/v1/messages', roomMessage('doomed', 'ops', 'after'), ADMIN)).status, 404);
  assert.is((await s.req('DELETE', '/v1/rooms/doomed', { token: ADMIN })).status, 404);

  // Creating it again revives it: the retained messages are still there.
  const again = await s.post('/v1/rooms', { id: 'doomed' }, ADMIN);
  assert.is(again.status, 200, again.text);
  const h = await s.get('/v1/rooms/doomed/messages', ADMIN);
  assert.equal(
    h.body.messages.map((x: { id: string }) => x.id),
    [m.body.message_id],
  );
});

t('a removed room disappears from agent summaries', async ({ s }) => {
  await s.post('/v1/agents/register', { requested_agent_id: 'roamer' }, ADMIN);
  await s.post('/v1/rooms', { id: 'short-lived', members: ['roamer'] }, ADMIN);
  assert.equal((await s.get('/v1/agents/roamer', ADMIN)).body.rooms, ['short-lived']);
  await s.req('DELETE', '/v1/rooms/short-lived', { token: ADMIN });
  assert.equal((await s.get('/v1/agents/roamer', ADMIN)).body.rooms, []);
});

t.run();
