// The send answer names each mention candidate that was not mentioned (`unmentioned`), why, and
// the command that fixes it; and rooms declared `join_on_register` are joined by new agents.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;

interface Ctx {
  s: AppServer;
}

const test = suite<Ctx>('mentions that were not mentioned');
test.before(async (c) => {
  c.s = await startApp({
    config: {
      auth: { agent_registration: 'open' },
      rooms: [
        { id: 'general', write_policy: 'registered_agents', join_on_register: true, members: [] },
        { id: 'quiet', write_policy: 'registered_agents', members: ['alpha', 'other:beta', 'far:beta'] },
      ],
    },
  });
  // alpha is bound to a static token by the config (not registered): it joins nothing.
  for (const id of ['beta', 'delta']) {
    const r = await c.s.post('/v1/agents/register', { requested_agent_id: id });
    assert.is(r.status, 200, r.text);
  }
});
test.after(async (c) => c.s?.dispose());

const history = async (s: AppServer, room: string) => (await s.get(`/v1/rooms/${room}/messages`, ADMIN)).body.messages as Json[];

test('an agent registered after start joins the join_on_register room, and only that one', async ({ s }) => {
  assert.equal((await s.get('/v1/rooms/general', ADMIN)).body.members, ['beta', 'delta']);
  assert.equal((await s.get('/v1/rooms/quiet', ADMIN)).body.members, ['alpha', 'other:beta', 'far:beta']);
});

test('a mention in the join_on_register room resolves: nothing is unmentioned', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', '@beta ping'), ALPHA);
  assert.is(r.status, 200, r.text);
  assert.is(r.body.unmentioned, undefined);
  const m = (await history(s, 'general')).find((x) => x.id === r.body.message_id);
  assert.equal(m.mentions, [`svc://${s.networkId}/agents/beta`]);
});

test('a registered agent that is not a member is named, with the command that adds it', async ({ s }) => {
  await s.post('/v1/agents/register', { requested_agent_id: 'gamma' });
  const r = await s.post('/v1/messages', roomMessage('quiet', 'alpha', 'hi @alpha'), ALPHA);
  assert.is(r.body.unmentioned, undefined, 'a member is mentioned');
  const x = await s.post('/v1/messages', { ...roomMessage('quiet', 'alpha', 'ping @gamma.'), mentions: ['gamma'] }, ALPHA);
  assert.is(x.status, 200, x.text);
  assert.equal(x.body.unmentioned, [
    { id: 'gamma', reason: 'not_member', detail: 'gamma is not a member of room quiet', fix: 'svc rooms members quiet --add gamma' },
  ]);
  const m = (await history(s, 'quiet')).find((y) => y.id === x.body.message_id);
  assert.equal(m.mentions, [], 'resolution stays best-effort: stored without it');
});

test('an id that no agent has is named as unknown, with the closest member when it looks like a typo', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', '@bta and @zed'), ALPHA);
  assert.is(r.status, 200, r.text);
  assert.equal(
    r.body.unmentioned.map((u: Json) => [u.id, u.reason, u.fix]),
    [
      ['bta', 'unknown_agent', 'did you mean @beta?'],
      ['zed', 'unknown_agent', 'register it (svc agents register --id zed), then add it: svc rooms members general --add zed'],
    ],
  );
});

test('a bare id that members of two networks carry is named as ambiguous', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('quiet', 'alpha', '@beta?'), ALPHA);
  assert.equal(r.body.unmentioned, [
    {
      id: 'beta',
      reason: 'ambiguous',
      detail: 'members of more than one network are called beta',
      fix: 'name its network: @<network_id>:beta',
    },
  ]);
});

test('in a DM, an agent that is not a participant is named with the DM that would reach it', async ({ s }) => {
  const r = await s.post(
    '/v1/messages',
    {
      target: { kind: 'dm', participant_ids: ['beta'] },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: '@gamma too' }],
    },
    ALPHA,
  );
  assert.is(r.status, 200, r.text);
  assert.equal(
    r.body.unmentioned.map((u: Json) => [u.id, u.reason, u.fix]),
    [['gamma', 'not_participant', 'send it a DM: svc send --dm gamma TEXT']],
  );
});

test('an FQID that names no agent is named as such', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', 'see <@svc://testnet/rooms/general>'), ALPHA);
  assert.equal(r.body.unmentioned, [
    {
      id: 'svc://testnet/rooms/general',
      reason: 'unknown_agent',
      detail: 'svc://testnet/rooms/general does not name an agent',
      fix: 'mention an agent: @ID, @NETWORK:ID or <@svc://NETWORK/agents/ID>',
    },
  ]);
});

test('at most 10 candidates are named, each once', async ({ s }) => {
  const text = Array.from({ length: 50 }, (_, i) => `@nobody${i % 20} @nobody${i % 20}`).join(' ');
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', text), ALPHA);
  assert.is(r.status, 200, r.text);
  assert.equal(
    r.body.unmentioned.map((u: Json) => u.id),
    Array.from({ length: 10 }, (_, i) => `nobody${i}`),
  );
});

test('a retry of a stored id answers as before, without the list', async ({ s }) => {
  const body = { ...roomMessage('quiet', 'alpha', '@gamma once'), id: 'retry-unmentioned-1' };
  assert.is((await s.post('/v1/messages', body, ALPHA)).body.unmentioned.length, 1);
  const again = await s.post('/v1/messages', body, ALPHA);
  assert.is(again.status, 200, again.text);
  assert.is(again.body.unmentioned, undefined);
});

test.run();
