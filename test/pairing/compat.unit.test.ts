import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateRemote } from '../../src/pairing/compat.js';
import { nextStatus } from '../../src/pairing/status.js';
import { classifyRelayAnswer, isRelayable, relayRequestFor } from '../../src/pairing/relay-message.js';
import { filterRemoteAgents, filterRemoteRooms } from '../../src/pairing/filter.js';
import { backoffDelay } from '../../src/pairing/relay-client.js';
import type { Message } from '../../src/protocol/types.js';

const AT = '2030-01-01T00:00:00.000Z';

function doc(over: Record<string, unknown> = {}, caps: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'remote',
    name: 'Remote',
    version: '0.9.0',
    protocols: { http: ['service.http.v1'], attach: ['service.attach.v1'], pair: ['service.pair.v1'] },
    capabilities: {
      event_stream: 'sse',
      attachment_protocol: 'websocket',
      human_ingress: true,
      direct_messages: true,
      message_pagination: 'cursor',
      pairings: true,
      ...caps,
    },
    ...over,
  };
}
/** `null`: no expected id (the inviting side before the peer answered). */
const check = (d: unknown, expected: string | null = 'remote') =>
  evaluateRemote({ doc: d, ...(expected !== null ? { expected } : {}), localNetworkId: 'home', checkedAt: AT });

const c = suite('the compatibility check of a remote network document');

c("the peer's retention is reported as it states it; anything else in it is dropped", () => {
  assert.equal(check(doc({ retention: { max_age: '30d', max_messages: 10, other: 1 } })).diagnostics.remote_retention, {
    max_age: '30d',
    max_messages: 10,
  });
  assert.is(check(doc()).diagnostics.remote_retention, undefined);
  assert.is(check(doc({ retention: { max_age: 30 } })).diagnostics.remote_retention, undefined);
});

c('a current remote with DMs is connected, with redacted diagnostics', () => {
  assert.equal(check(doc()), {
    status: 'connected',
    diagnostics: {
      checked_at: AT,
      remote_version: '0.9.0',
      remote_network_id: 'remote',
      remote_protocols: { http: ['service.http.v1'], pair: ['service.pair.v1'] },
    },
    remote: { network_id: 'remote', name: 'Remote', direct_messages: true },
  });
});

c('a remote answering with another network id is incompatible', () => {
  const r = check(doc({ id: 'impostor' }));
  assert.is(r.status, 'incompatible');
  assert.is(r.reason, 'network_id_mismatch');
  assert.is(r.diagnostics.message, 'expected remote network remote, the remote answers as impostor');
  assert.is(r.diagnostics.remote_network_id, 'impostor');
});

c('a remote answering with this network own id is incompatible even when no id is expected', () => {
  const r = check(doc({ id: 'home' }), null);
  assert.is(r.status, 'incompatible');
  assert.is(r.reason, 'network_id_mismatch');
});

c('with no expected id (inviting side) any other network id is accepted', () => {
  assert.is(check(doc({ id: 'whoever' }), null).status, 'connected');
});

c('an older pair protocol id is incompatible', () => {
  const r = check(doc({ protocols: { http: ['service.http.v1'], pair: ['service.pair.v0'] } }));
  assert.is(r.status, 'incompatible');
  assert.is(r.reason, 'unsupported_pair_protocol');
  assert.is(r.diagnostics.reason, 'unsupported_pair_protocol');
  assert.equal(r.diagnostics.remote_protocols, { http: ['service.http.v1'], pair: ['service.pair.v0'] });
});

c('several pair protocols including ours are compatible', () => {
  assert.is(check(doc({ protocols: { http: ['service.http.v1'], pair: ['service.pair.v0', 'service.pair.v1'] } })).status, 'connected');
});

c('HTTP protocol advertised with the pair list omitted or empty is a legacy candidate, treated as compatible', () => {
  for (const protocols of [{ http: ['service.http.v1'] }, { http: ['service.http.v1'], pair: [] }]) {
    const r = check(doc({ protocols }));
    assert.is(r.status, 'connected');
    assert.is(r.reason, 'legacy_pair_protocol');
  }
});

c('a remote without the HTTP protocol (or without protocols at all) is incompatible', () => {
  for (const protocols of [undefined, {}, { http: [] }, { http: ['service.http.v2'], pair: ['service.pair.v1'] }]) {
    const d = doc();
    if (protocols === undefined) delete d.protocols;
    else d.protocols = protocols;
    assert.is(check(d).reason, 'unsupported_http_protocol', JSON.stringify(protocols));
    assert.is(check(d).status, 'incompatible');
  }
});

c('cursor pagination is required', () => {
  for (const v of [undefined, 'offset']) {
    const r = check(doc({}, { message_pagination: v }));
    assert.is(r.status, 'incompatible');
    assert.is(r.reason, 'missing_cursor_pagination');
  }
});

c('a remote with direct messages off is degraded (DM relay unavailable); a missing capability counts as off', () => {
  assert.is(check(doc({}, { direct_messages: false })).status, 'degraded');
  assert.is(check(doc({}, { direct_messages: undefined })).reason, 'direct_messages_unavailable');
  assert.equal(check(doc({}, { direct_messages: false })).remote, { network_id: 'remote', name: 'Remote', direct_messages: false });
});

c('an answer that is not a network document is incompatible', () => {
  for (const d of [null, 'hello', [], {}, { id: 7 }]) assert.is(check(d).reason, 'invalid_network_document');
});

c.run();

const s = suite('pairing status transitions');

s('a check sets the status it found and marks the peer as having answered', () => {
  assert.equal(nextStatus({ status: 'unknown', answered: false }, { kind: 'checked', status: 'connected' }), {
    status: 'connected',
    answered: true,
  });
  assert.equal(nextStatus({ status: 'error', answered: true }, { kind: 'checked', status: 'degraded' }), {
    status: 'degraded',
    answered: true,
  });
  assert.equal(nextStatus({ status: 'connected', answered: true }, { kind: 'checked', status: 'incompatible' }), {
    status: 'incompatible',
    answered: true,
  });
});

s('a failure before the peer ever answered is pending, and stays pending', () => {
  assert.equal(nextStatus({ status: 'unknown', answered: false }, { kind: 'failed' }), { status: 'pending', answered: false });
  assert.equal(nextStatus({ status: 'pending', answered: false }, { kind: 'failed' }), { status: 'pending', answered: false });
});

s('a failure after the peer has answered is an error, from connected, degraded or incompatible', () => {
  for (const status of ['connected', 'degraded', 'incompatible'] as const) {
    assert.equal(nextStatus({ status, answered: true }, { kind: 'failed' }), { status: 'error', answered: true });
  }
});

s.run();

const message = (over: Partial<Message> = {}): Message => ({
  id: 'msg_1',
  network_id: 'home',
  target: { kind: 'room', room_id: 'general' },
  from: { type: 'agent', id: 'alpha', network_id: 'home', fqid: 'svc://home/agents/alpha' },
  parts: [{ kind: 'text', text: 'hi' }],
  mentions: [],
  created_at: AT,
  ...over,
});
const facts = {
  localNetworkId: 'home',
  remoteNetworkId: 'away',
  remoteDirectMessages: true,
  roomFederated: (id: string) => id === 'general',
};

const r = suite('which messages are relayed, and how');

r('a local message in a federated room or its threads is relayed; other rooms are not', () => {
  assert.ok(isRelayable(message(), facts));
  assert.ok(isRelayable(message({ target: { kind: 'thread', room_id: 'general', thread_id: 't1' } }), facts));
  assert.not.ok(isRelayable(message({ target: { kind: 'room', room_id: 'private' } }), facts));
});

r('a relayed message or one from another network is never relayed again', () => {
  assert.not.ok(isRelayable(message({ origin: { network_id: 'away', message_id: 'm' } }), facts));
  assert.not.ok(isRelayable(message({ from: { type: 'agent', id: 'b', network_id: 'away', fqid: 'svc://away/agents/b' } }), facts));
});

r('a DM is relayed only when a participant belongs to the remote and the remote has DMs on', () => {
  const dm = message({ target: { kind: 'dm', dm_id: 'dm_x', participant_ids: ['away:beta', 'home:alpha'] } });
  assert.ok(isRelayable(dm, facts));
  assert.not.ok(isRelayable(dm, { ...facts, remoteDirectMessages: false }));
  assert.not.ok(isRelayable(dm, { ...facts, remoteNetworkId: 'elsewhere' }));
  const { remoteNetworkId: _omit, ...unknownRemote } = facts;
  assert.not.ok(isRelayable(dm, unknownRemote));
});

r('the relay request keeps the id, names the origin and the sender home', () => {
  const m = message({
    mentions: ['svc://away/agents/beta'],
    from: { type: 'agent', id: 'alpha', name: 'Alpha', network_id: 'home', fqid: 'svc://home/agents/alpha' },
  });
  assert.equal(relayRequestFor(m, 'home'), {
    id: 'msg_1',
    target: { kind: 'room', room_id: 'general' },
    from: { type: 'agent', id: 'alpha', name: 'Alpha', network_id: 'home' },
    parts: [{ kind: 'text', text: 'hi' }],
    mentions: ['svc://away/agents/beta'],
    origin: { network_id: 'home', message_id: 'msg_1' },
  });
  const thread = message({ target: { kind: 'thread', room_id: 'general', thread_id: 't1', parent_message_id: 'msg_0' } });
  assert.equal(relayRequestFor(thread, 'home').target, { kind: 'thread', room_id: 'general', thread_id: 't1', parent_message_id: 'msg_0' });
  assert.equal(relayRequestFor(thread, 'home', { withParent: false }).target, { kind: 'thread', room_id: 'general', thread_id: 't1' });
  const dm = message({ target: { kind: 'dm', dm_id: 'dm_x', participant_ids: ['away:beta', 'home:alpha'] } });
  assert.equal(relayRequestFor(dm, 'home').target, { kind: 'dm', participant_ids: ['away:beta', 'home:alpha'] });
});

r('answers: 2xx delivered; 401, 408, 429 and 5xx retried; other refusals final', () => {
  assert.equal([200, 201, 401, 408, 429, 500, 503, 400, 403, 404, 409, 413].map(classifyRelayAnswer), [
    'delivered',
    'delivered',
    'retry',
    'retry',
    'retry',
    'retry',
    'retry',
    'refused',
    'refused',
    'refused',
    'refused',
    'refused',
  ]);
});

r('reconnect delays grow, are capped and jittered by +-50%', () => {
  assert.is(
    backoffDelay(0, 250, 10_000, () => 0.5),
    250,
  );
  assert.is(
    backoffDelay(3, 250, 10_000, () => 0.5),
    2000,
  );
  assert.is(
    backoffDelay(30, 250, 10_000, () => 0.5),
    10_000,
  );
  assert.is(
    backoffDelay(30, 250, 10_000, () => 0),
    5000,
  );
  assert.is(
    backoffDelay(30, 250, 10_000, () => 0.999999),
    15_000,
  );
});

r.run();

const f = suite('remote rooms and agents seen by an agents-allowlisted token');

const rooms = [
  { id: 'lobby', network_id: 'away', visibility: 'public', members: ['beta'] },
  { id: 'scoped', network_id: 'away', visibility: 'private', members: ['gamma', 'home:alpha'] },
  { id: 'fqid', network_id: 'away', visibility: 'private', members: ['svc://home/agents/alpha', 'delta'] },
  { id: 'bare', network_id: 'away', visibility: 'private', members: ['alpha'] },
  { id: 'other', network_id: 'away', visibility: 'private', members: ['home:omega'] },
  { id: 'mislabelled', network_id: 'third', visibility: 'public', members: [] },
  { id: 'novis', network_id: 'away', members: ['epsilon'] },
];
const agents = [
  { id: 'beta', name: 'Beta', actor_uid: 'a1', fqid: 'svc://away/agents/beta', network_id: 'away', rooms: ['lobby'] },
  { id: 'gamma', actor_uid: 'a2', fqid: 'svc://away/agents/gamma', network_id: 'away', rooms: ['scoped', 'bare'] },
  { id: 'delta', actor_uid: 'a3', fqid: 'svc://away/agents/delta', network_id: 'away', rooms: ['fqid'] },
  { id: 'epsilon', actor_uid: 'a4', fqid: 'svc://away/agents/epsilon', network_id: 'away', rooms: ['novis'] },
  { id: 'zeta', actor_uid: 'a5', fqid: 'svc://third/agents/zeta', network_id: 'third', rooms: ['lobby'] },
];
const restricted = { agents: new Set(['alpha']) };

f('an unrestricted viewer sees every room the remote shows the pairing', () => {
  assert.equal(
    filterRemoteRooms(rooms, {}, 'home', 'away').map((x) => x.id),
    rooms.map((x) => x.id),
  );
});

f('public rooms, and private ones naming the allowed agent with this network (scoped or FQID), are visible', () => {
  assert.equal(
    filterRemoteRooms(rooms, restricted, 'home', 'away').map((x) => x.id),
    ['lobby', 'scoped', 'fqid'],
  );
});

f('a bare member name belongs to the remote; labels that conflict or are missing fail closed', () => {
  const ids = filterRemoteRooms(rooms, restricted, 'home', 'away').map((x) => x.id);
  assert.not.ok(ids.includes('bare'));
  assert.not.ok(ids.includes('mislabelled'));
  assert.not.ok(ids.includes('novis'));
  assert.equal(filterRemoteRooms(rooms, restricted, 'home', 'home'), []);
});

f('agents are those of the visible rooms, names dropped, room lists cut to what is visible', () => {
  const visible = filterRemoteRooms(rooms, restricted, 'home', 'away');
  assert.equal(filterRemoteAgents(agents, visible, restricted, 'home', 'away'), [
    { id: 'beta', actor_uid: 'a1', fqid: 'svc://away/agents/beta', network_id: 'away', rooms: ['lobby'] },
    { id: 'gamma', actor_uid: 'a2', fqid: 'svc://away/agents/gamma', network_id: 'away', rooms: ['scoped'] },
    { id: 'delta', actor_uid: 'a3', fqid: 'svc://away/agents/delta', network_id: 'away', rooms: ['fqid'] },
  ]);
  assert.equal(
    filterRemoteAgents(agents, [], {}, 'home', 'away').map((a) => [a.id, 'name' in a]),
    [
      ['beta', false],
      ['gamma', false],
      ['delta', false],
      ['epsilon', false],
      ['zeta', false],
    ],
  );
});

f.run();
