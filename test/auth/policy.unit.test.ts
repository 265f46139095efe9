// Authorization as pure functions: the route rules (src/auth/policy.ts), room write policy
// (src/auth/write-policy.ts) and visibility (src/auth/visibility.ts).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RULES, authorize, type Action, type PolicySettings } from '../../src/auth/policy.js';
import { AGENT_TOKEN_SCOPES, mayAssertAgent, type Principal } from '../../src/auth/principal.js';
import { decideRoomWrite } from '../../src/auth/write-policy.js';
import { canSeeAgent, canSeeDm, canSeeListedAgent, canSeeRoom, roomsOfLocalAgents, viewerOf } from '../../src/auth/visibility.js';
import type { Scope, WritePolicy } from '../../src/protocol/types.js';
import type { DmRecord, RoomRecord } from '../../src/store/types.js';

const NET = 'home';
const stat = (id: string, scopes: Scope[], agents?: string[]): Principal => ({
  kind: 'static',
  tokenId: id,
  scopes: new Set(scopes),
  ...(agents ? { agents: new Set(agents) } : {}),
  credentialKey: `token:${id}`,
});
const P = {
  trusted: { kind: 'trusted', credentialKey: 'anonymous' } as Principal,
  anonymous: { kind: 'anonymous' } as Principal,
  observer: stat('observer', ['observe']),
  writer: stat('writer', ['write']),
  attacher: stat('attacher', ['attach']),
  pair: stat('pair', ['pair']),
  adminOnly: stat('admin-only', ['admin']),
  admin: stat('admin', ['observe', 'write', 'admin', 'attach']),
  adminWriter: stat('admin-writer', ['admin', 'write']),
  alphaOnly: stat('alpha-only', ['observe', 'write', 'attach'], ['alpha']),
  agent: { kind: 'agent', agentId: 'gen', scopes: AGENT_TOKEN_SCOPES, credentialKey: 'agent:abc' } as Principal,
};
type Who = keyof typeof P;

const closed: PolicySettings = { public_read: false, agent_registration: 'disabled' };
const publicRead: PolicySettings = { public_read: true, agent_registration: 'token' };
const openReg: PolicySettings = { public_read: false, agent_registration: 'open' };

const status = (who: Who, action: Action, s: PolicySettings = closed): number => {
  const d = authorize(P[who], action, s);
  return d.allow ? 200 : d.status;
};

const rules = suite('the route rules');

// Route checks of SPEC.md, Authentication: action -> scopes that pass.
const EXPECTED_SCOPES: Record<Action, Scope[]> = {
  metrics: ['admin'],
  'network.read': ['observe', 'admin', 'pair', 'attach'],
  'topology.list': ['observe', 'admin', 'pair'],
  'topology.get': ['observe', 'admin'],
  'history.read': ['observe', 'admin'],
  'dm.read': ['observe', 'admin'],
  'artifacts.read': ['observe', 'admin'],
  'events.stream': ['observe', 'admin'],
  'pairings.read': ['observe', 'admin'],
  // A paired network fetching a file of a message relayed to it (#41 part 6; docs/security.md).
  'pairing.files': ['pair'],
  'message.send': ['write', 'pair'],
  'message.change': ['write', 'pair', 'admin'],
  admin: ['admin'],
  'agent.register': ['admin', 'attach'],
  attach: ['attach'],
  console: ['observe', 'admin'],
  'doc.llms': ['observe', 'admin'],
  'doc.skill': ['observe', 'write', 'admin', 'attach'],
  'doc.install': ['observe', 'admin'],
  mcp: ['attach', 'write', 'observe', 'admin'],
  a2a: ['a2a', 'write'],
};

rules('every action accepts exactly the scopes of the Route checks table', () => {
  assert.equal(Object.keys(RULES).sort(), Object.keys(EXPECTED_SCOPES).sort());
  for (const [action, scopes] of Object.entries(EXPECTED_SCOPES) as [Action, Scope[]][]) {
    assert.equal([...RULES[action].scopes].sort(), [...scopes].sort(), action);
    for (const sc of ['observe', 'write', 'admin', 'attach', 'pair'] as Scope[]) {
      const d = authorize(stat('t', [sc]), action, closed);
      assert.is(d.allow, scopes.includes(sc), `${action} with ${sc}`);
      if (!d.allow) assert.is(d.status, 403, `${action} with ${sc} is under-scoped, not unauthenticated`);
    }
  }
});

rules('an anonymous caller gets 401 on every route when reads are private and registration is closed', () => {
  for (const action of Object.keys(RULES) as Action[]) assert.is(status('anonymous', action), 401, action);
});

rules('public read lets anonymous callers read public data, never DMs, artifacts, pairings, metrics or admin', () => {
  const open = [
    'network.read',
    'topology.list',
    'topology.get',
    'history.read',
    'events.stream',
    'console',
    'doc.llms',
    'doc.skill',
    'doc.install',
  ];
  for (const action of Object.keys(RULES) as Action[]) {
    assert.is(status('anonymous', action, publicRead), open.includes(action) ? 200 : 401, action);
  }
});

rules('open registration lets anonymous callers register and attach, and nothing else', () => {
  for (const action of Object.keys(RULES) as Action[]) {
    assert.is(status('anonymous', action, openReg), action === 'agent.register' || action === 'attach' ? 200 : 401, action);
  }
});

rules('mode none (trusted) passes every rule', () => {
  for (const action of Object.keys(RULES) as Action[]) assert.is(status('trusted', action), 200, action);
});

rules('a generated agent token reads, writes and attaches but never administers', () => {
  const expect: Record<Action, number> = {
    metrics: 403,
    'network.read': 200,
    'topology.list': 200,
    'topology.get': 200,
    'history.read': 200,
    'dm.read': 200,
    'artifacts.read': 200,
    'events.stream': 200,
    'pairings.read': 403,
    'pairing.files': 403,
    'message.send': 200,
    'message.change': 200,
    admin: 403,
    'agent.register': 200,
    attach: 200,
    console: 200,
    'doc.llms': 200,
    'doc.skill': 200,
    'doc.install': 200,
    mcp: 200,
    a2a: 200,
  };
  for (const [action, st] of Object.entries(expect) as [Action, number][]) assert.is(status('agent', action), st, action);
});

rules('pairings routes refuse agent tokens with 403 although they carry observe', () => {
  const d = authorize(P.agent, 'pairings.read', publicRead);
  assert.equal(d.allow, false);
  assert.is(!d.allow && d.status, 403);
  assert.is(status('observer', 'pairings.read'), 200);
});

rules('a valid under-scoped token is refused with 403 even where anonymous reads are allowed', () => {
  assert.is(status('writer', 'topology.list', publicRead), 403);
  assert.is(status('writer', 'history.read', publicRead), 403);
  assert.is(status('attacher', 'history.read', publicRead), 403);
});

rules('a refusal says which scopes the route needs', () => {
  const d = authorize(P.observer, 'admin', closed);
  assert.ok(!d.allow && /admin/.test(d.reason));
});

const assertAgent = suite('who may act as a local agent');

assertAgent('an agent token acts only as its own agent', () => {
  assert.ok(mayAssertAgent(P.agent, 'gen'));
  assert.not.ok(mayAssertAgent(P.agent, 'alpha'));
});

assertAgent('an allowlisted static token acts only as listed agents', () => {
  assert.ok(mayAssertAgent(P.alphaOnly, 'alpha'));
  assert.not.ok(mayAssertAgent(P.alphaOnly, 'beta'));
});

assertAgent('an unrestricted static token and mode none may assert any agent; anonymous none', () => {
  assert.ok(mayAssertAgent(P.writer, 'anyone'));
  assert.ok(mayAssertAgent(P.trusted, 'anyone'));
  assert.not.ok(mayAssertAgent(P.anonymous, 'anyone'));
});

const write = suite('room write policy');
const room = (write_policy: WritePolicy) => ({ id: 'r', members: ['alpha', 'other:beta'], write_policy });
const allowed = (who: Who, policy: WritePolicy, memberId: string, registeredLocalAgent = false) =>
  decideRoomWrite(P[who], room(policy), { memberId, registeredLocalAgent }).allow;

write('members: members may write, non-members may not', () => {
  assert.ok(allowed('alphaOnly', 'members', 'alpha'));
  assert.ok(allowed('agent', 'members', 'other:beta'));
  assert.not.ok(allowed('writer', 'members', 'zed'));
  assert.not.ok(allowed('agent', 'members', 'gen', true));
});

write('members: an operator holding both admin and write may write as anyone', () => {
  assert.ok(allowed('admin', 'members', 'zed'));
  assert.ok(allowed('adminWriter', 'members', 'zed'));
  assert.not.ok(allowed('adminOnly', 'members', 'zed'));
  assert.ok(allowed('trusted', 'members', 'zed'));
});

write('registered_agents: members and registered local agents may write', () => {
  assert.ok(allowed('alphaOnly', 'registered_agents', 'alpha'));
  assert.ok(allowed('agent', 'registered_agents', 'gen', true));
  assert.not.ok(allowed('writer', 'registered_agents', 'zed', false));
  assert.ok(allowed('admin', 'registered_agents', 'zed', false));
});

write('operators: only static write-capable credentials, never agent tokens, even for members', () => {
  assert.ok(allowed('writer', 'operators', 'zed'));
  assert.ok(allowed('alphaOnly', 'operators', 'alpha'));
  assert.ok(allowed('trusted', 'operators', 'zed'));
  assert.not.ok(allowed('agent', 'operators', 'alpha', true));
  assert.not.ok(allowed('adminOnly', 'operators', 'alpha'));
  assert.not.ok(allowed('pair', 'operators', 'other:beta'));
});

write('a refusal names the room and its policy', () => {
  const d = decideRoomWrite(P.writer, room('members'), { memberId: 'zed', registeredLocalAgent: false });
  assert.ok(!d.allow && d.reason.includes('room r') && d.reason.includes('write_policy: members'));
});

const vis = suite('what a principal may see');
const rec = (id: string, visibility: 'public' | 'private', members: string[], federation_pairings: string[] = []): RoomRecord => ({
  id,
  name: id,
  members,
  visibility,
  write_policy: 'members',
  federation_pairings,
  created_at: '2024-01-01T00:00:00.000Z',
  updated_at: '2024-01-01T00:00:00.000Z',
});
const pub = rec('pub', 'public', []);
const alphaRoom = rec('alpha-room', 'private', ['alpha']);
const scopedAlphaRoom = rec('scoped', 'private', ['home:alpha']);
const betaRoom = rec('beta-room', 'private', ['beta', 'other:alpha']);
const fedRoom = rec('fed', 'private', [], ['pair']);
const dm = (ids: string[]): DmRecord => ({ id: 'dm_x', participant_ids: ids, message_count: 1, last_message_at: 'x', created_at: 'x' });

vis('viewers by credential kind', () => {
  assert.equal(viewerOf(P.trusted), { all: true, dms: true });
  assert.equal(viewerOf(P.anonymous), { all: false, dms: false });
  assert.equal(viewerOf(P.observer), { all: true, dms: true });
  assert.equal(viewerOf(P.adminOnly), { all: true, dms: true });
  assert.equal(viewerOf(P.writer), { all: false, dms: false });
  assert.equal(viewerOf(P.pair), { all: false, pairingId: 'pair', dms: false });
  assert.equal(viewerOf(P.alphaOnly), { all: false, agents: new Set(['alpha']), dms: true });
  assert.equal(viewerOf(P.agent), { all: false, agents: new Set(['gen']), dms: true });
});

vis('public rooms are visible to everyone, private ones to full readers', () => {
  for (const who of Object.keys(P) as Who[]) assert.ok(canSeeRoom(viewerOf(P[who]), pub, NET), who);
  assert.ok(canSeeRoom(viewerOf(P.observer), betaRoom, NET));
  assert.not.ok(canSeeRoom(viewerOf(P.anonymous), alphaRoom, NET));
  assert.not.ok(canSeeRoom(viewerOf(P.writer), alphaRoom, NET));
});

vis('an allowlisted token sees a private room only when an allowed agent is a member', () => {
  const v = viewerOf(P.alphaOnly);
  assert.ok(canSeeRoom(v, alphaRoom, NET));
  assert.ok(canSeeRoom(v, scopedAlphaRoom, NET));
  assert.not.ok(canSeeRoom(v, betaRoom, NET), 'other:alpha is a remote agent, not local alpha');
});

vis('a pair credential sees public rooms and rooms federated with its pairing', () => {
  const v = viewerOf(P.pair);
  assert.ok(canSeeRoom(v, fedRoom, NET));
  assert.not.ok(canSeeRoom(v, alphaRoom, NET));
});

vis('DMs are visible to full readers, and to allowed agents that participate', () => {
  const d = dm(['home:alpha', 'home:beta']);
  assert.ok(canSeeDm(viewerOf(P.observer), d, NET));
  assert.ok(canSeeDm(viewerOf(P.alphaOnly), d, NET));
  assert.not.ok(canSeeDm(viewerOf(P.agent), d, NET));
  assert.ok(canSeeDm(viewerOf(P.agent), dm(['home:gen', 'other:x']), NET));
  assert.not.ok(canSeeDm(viewerOf(P.alphaOnly), dm(['other:alpha', 'home:beta']), NET));
});

vis('DMs are never visible anonymously, to writers or to pair credentials', () => {
  const d = dm(['home:alpha', 'home:beta']);
  for (const who of ['anonymous', 'writer', 'pair', 'attacher'] as Who[]) assert.not.ok(canSeeDm(viewerOf(P[who]), d, NET), who);
});

vis('an agent is visible when allowed itself or a member of a visible room', () => {
  const v = viewerOf(P.alphaOnly);
  const rooms = [pub, alphaRoom].filter((r) => canSeeRoom(v, r, NET));
  assert.ok(canSeeAgent(v, 'alpha', [], NET));
  assert.not.ok(canSeeAgent(v, 'beta', rooms, NET));
  assert.ok(canSeeAgent(v, 'beta', [...rooms, rec('p2', 'public', ['beta'])], NET));
  assert.ok(canSeeAgent(viewerOf(P.observer), 'anyone', [], NET));
  assert.not.ok(canSeeAgent(viewerOf(P.anonymous), 'alpha', [pub], NET));
});

vis('a list of agents sees and places each one as canSeeAgent and the rooms members do, member lists read once', () => {
  const rooms = [
    rec('r1', 'public', ['alpha', `${NET}:beta`, 'other:gamma']),
    rec('r2', 'private', [`${NET}:alpha`, 'alpha', 'delta']),
    rec('r3', 'private', ['other:alpha']),
  ];
  const local = roomsOfLocalAgents(rooms, NET);
  assert.equal(Object.fromEntries(local), { alpha: ['r1', 'r2'], beta: ['r1'], delta: ['r2'] });
  for (const who of ['alphaOnly', 'observer', 'anonymous', 'agent'] as Who[]) {
    const v = viewerOf(P[who]);
    for (const id of ['alpha', 'beta', 'gamma', 'delta', 'epsilon'])
      assert.is(canSeeListedAgent(v, id, local), canSeeAgent(v, id, rooms, NET), `${who} sees ${id}`);
  }
});

rules.run();
assertAgent.run();
write.run();
vis.run();
