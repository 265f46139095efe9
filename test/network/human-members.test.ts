// A person named in a room's members may write there: members are matched by id whatever the
// actor type, and a person can never take a registered agent's id, so write policy, DMs and
// mentions stay as safe as they are for agents.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const WRITER = TOKENS.writer.value;
const ALPHA = TOKENS.alphaOnly.value;
const ADMIN = TOKENS.admin.value;

const asPerson = (id: string, target: Json, text = 'hello') => ({ target, from: { type: 'human', id }, parts: [{ kind: 'text', text }] });
const room = { kind: 'room', room_id: 'ops' };

const people = suite<{ s: AppServer }>('people named in a members-only room');
people.before(async (ctx) => {
  // The memory store: nothing here restarts the server or reads its files.
  ctx.s = await startApp({
    config: { store: { backend: 'memory' }, rooms: [{ id: 'ops', write_policy: 'members', members: ['alpha', 'operator'] }] },
  });
  const reg = await ctx.s.post('/v1/agents/register', { requested_agent_id: 'alpha' }, ALPHA);
  assert.is(reg.status, 200, reg.text);
});
people.after(async (ctx) => ctx.s.dispose());

people('a write-scoped static token sending as the member person operator is accepted', async ({ s }) => {
  const r = await s.post('/v1/messages', asPerson('operator', room), WRITER);
  assert.is(r.status, 200, r.text);
  const h = await s.get('/v1/rooms/ops/messages', ADMIN);
  const m = h.body.messages.find((x: Json) => x.id === r.body.message_id);
  assert.equal(
    { type: m.from.type, id: m.from.id, fqid: m.from.fqid },
    { type: 'human', id: 'operator', fqid: 'svc://testnet/humans/operator' },
  );
});

people('a person not in the members is refused with 403 and the reason', async ({ s }) => {
  const r = await s.post('/v1/messages', asPerson('mallory', room), WRITER);
  assert.is(r.status, 403, r.text);
  assert.match(r.body.error, /mallory is not a member of room ops \(write_policy: members\)/);
});

people('a person still cannot use the id of a registered member agent', async ({ s }) => {
  const r = await s.post('/v1/messages', asPerson('alpha', room), WRITER);
  assert.is(r.status, 403, r.text);
  assert.match(r.body.error, /registered agent id/);
});

people('a token limited to agents, or an agent token, cannot write as the member person', async ({ s }) => {
  assert.is((await s.post('/v1/messages', asPerson('operator', room), ALPHA)).status, 403);
  assert.is((await s.post('/v1/messages', asPerson('operator', room), TOKENS.observer.value)).status, 403);
});

people('a member person mentioning an agent member resolves the mention', async ({ s }) => {
  const r = await s.post('/v1/messages', asPerson('operator', room, 'ping @alpha'), WRITER);
  assert.is(r.status, 200, r.text);
  const m = (await s.get('/v1/rooms/ops/messages', ADMIN)).body.messages.find((x: Json) => x.id === r.body.message_id);
  assert.equal(m.mentions, ['svc://testnet/agents/alpha']);
});

people('a person in a DM writes only into a DM they take part in', async ({ s }) => {
  const dm = await s.post('/v1/messages', asPerson('operator', { kind: 'dm', participant_ids: ['alpha'] }), WRITER);
  assert.is(dm.status, 200, dm.text);
  const dmId = (await s.get('/v1/dms', ADMIN)).body.dms.find((d: Json) => d.participant_ids.includes('testnet:operator'))?.id;
  assert.type(dmId, 'string');
  const intruder = await s.post('/v1/messages', asPerson('mallory', { kind: 'dm', dm_id: dmId }), WRITER);
  assert.is(intruder.status, 403, intruder.text);
});

people.run();
