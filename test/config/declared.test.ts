// Rooms declared in svc.yaml are reconciled at start-up and on reload without undoing what an
// operator did at run time: members granted stay, a removed room stays removed.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, TOKENS, eventually, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;

const t = suite<{ s: TestServer }>('declared rooms after a reload and a restart');
t.before(async (c) => {
  c.s = await startServer({
    config: {
      rooms: [
        { id: 'ops', name: 'Ops', members: ['alpha'] },
        { id: 'old', members: [] },
      ],
    },
  });
});
t.after(async (c) => c.s?.dispose());

const members = async (s: TestServer, id: string) => (await s.get(`/v1/rooms/${id}`, ADMIN)).body.members as string[];
const reloads = (s: TestServer) => (s.output().match(/config reloaded/g) ?? []).length;

t('a member granted at run time and a removed room survive SIGHUP', async ({ s }) => {
  assert.is((await s.req('PATCH', '/v1/rooms/ops/members', { token: ADMIN, body: { add: ['other:bob'] } })).status, 200);
  assert.is((await s.req('DELETE', '/v1/rooms/old', { token: ADMIN })).status, 200);
  const before = reloads(s);
  s.proc.kill('SIGHUP');
  await eventually(() => reloads(s) > before, 5000, 'the reload');
  assert.equal(await members(s, 'ops'), ['alpha', 'other:bob']);
  assert.is((await s.get('/v1/rooms/old', ADMIN)).status, 404);
});

t('a declared member removed at run time comes back, other grants stay, after a restart', async ({ s }) => {
  assert.is((await s.req('PATCH', '/v1/rooms/ops/members', { token: ADMIN, body: { remove: ['alpha'] } })).status, 200);
  await s.restart();
  assert.equal((await members(s, 'ops')).sort(), ['alpha', 'other:bob']);
  assert.is((await s.get('/v1/rooms/old', ADMIN)).status, 404);
});

t('an explicit apply is exact: it sets members as declared and revives a removed room', async ({ s }) => {
  const r = await s.post('/v1/apply', { network_id: 'testnet', rooms: [{ id: 'ops', members: ['alpha'] }, { id: 'old' }] }, ADMIN);
  assert.is(r.status, 200, r.text);
  assert.equal(await members(s, 'ops'), ['alpha']);
  assert.is((await s.get('/v1/rooms/old', ADMIN)).status, 200);
});

t.run();
