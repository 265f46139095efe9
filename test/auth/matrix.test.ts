// The Route checks table of SPEC.md as data: route x credential kind -> expected status, against a
// real server. One server keeps reads private (registration open, so agent tokens exist); another
// enables public read, to show what anonymous callers get and that bad credentials never downgrade.
// Rows cover the core routes plus /metrics, /v1/pairings and the event stream; the console and the
// discovery documents have their own tests.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, type Res } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';

const KINDS = [
  'anonymous',
  'invalid',
  'malformed',
  'forgedAgent',
  'observer',
  'writer',
  'attacher',
  'pair',
  'adminOnly',
  'admin',
  'alphaOnly',
  'agent',
] as const;
type Kind = (typeof KINDS)[number];
const BAD: readonly Kind[] = ['invalid', 'malformed', 'forgedAgent'];

interface Row {
  method: string;
  path: string | ((k: Kind) => string);
  body?: (k: Kind) => unknown;
  /** Kinds that pass, and the status they get. */
  allow: readonly Kind[];
  ok?: number;
  /** Status of an anonymous caller when not in `allow` (401 unless said). */
  anon?: number;
}

interface Ctx {
  s: AppServer;
  agentToken: string;
  dmId: string;
}

/** Opens an event stream and closes it once the status is known; an error body is read whole. */
async function openStream(s: AppServer, headers: Record<string, string>): Promise<Res> {
  const ac = new AbortController();
  const r = await fetch(`${s.url}/v1/events/stream`, { headers, signal: ac.signal });
  if (r.ok) {
    ac.abort();
    return { status: r.status, body: undefined, text: '', headers: r.headers };
  }
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text), text, headers: r.headers };
}

function send(s: AppServer, kind: Kind, agentToken: string, method: string, path: string, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = {};
  const token: Record<Kind, string | undefined> = {
    anonymous: undefined,
    invalid: 'tok-not-a-real-token-0123',
    malformed: undefined,
    forgedAgent: 'agt_v1_forgedforgedforgedforgedforged',
    observer: TOKENS.observer.value,
    writer: TOKENS.writer.value,
    attacher: TOKENS.attacher.value,
    pair: TOKENS.pair.value,
    adminOnly: TOKENS.adminOnly.value,
    admin: TOKENS.admin.value,
    alphaOnly: TOKENS.alphaOnly.value,
    agent: agentToken,
  };
  if (kind === 'malformed') headers.authorization = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
  if (path === '/v1/events/stream') return openStream(s, token[kind] ? { ...headers, authorization: `Bearer ${token[kind]}` } : headers);
  return s.req(method, path, { ...(token[kind] ? { token: token[kind] } : {}), ...(body !== undefined ? { body } : {}), headers });
}

/** Which local agent each credential kind sends as: one it may assert and that is a member of `pub`. */
const senderOf = (k: Kind): string => (k === 'alphaOnly' ? 'alpha' : k === 'agent' ? 'gen' : 'ops');

const READERS: readonly Kind[] = ['observer', 'adminOnly', 'admin', 'alphaOnly', 'agent'];
const ADMINS: readonly Kind[] = ['adminOnly', 'admin'];

function rowsFor(dmId: () => string): Record<string, Row> {
  return {
    'GET /healthz': { method: 'GET', path: '/healthz', allow: KINDS.filter((k) => !BAD.includes(k)) },
    'GET /readyz': { method: 'GET', path: '/readyz', allow: KINDS.filter((k) => !BAD.includes(k)) },
    'GET /v1/network': { method: 'GET', path: '/v1/network', allow: [...READERS, 'pair', 'attacher'] },
    'GET /v1/rooms': { method: 'GET', path: '/v1/rooms', allow: [...READERS, 'pair'] },
    'GET /v1/rooms/{id}': { method: 'GET', path: '/v1/rooms/pub', allow: READERS },
    'POST /v1/rooms': { method: 'POST', path: '/v1/rooms', body: (k) => ({ id: `new-${k}`, name: 'New' }), allow: ADMINS },
    'PATCH /v1/rooms/{id}/members': { method: 'PATCH', path: '/v1/rooms/pub/members', body: () => ({ add: ['extra'] }), allow: ADMINS },
    'DELETE /v1/rooms/{id}': { method: 'DELETE', path: (k) => `/v1/rooms/rm-${k}`, allow: ADMINS },
    'GET /v1/rooms/{id}/messages': { method: 'GET', path: '/v1/rooms/pub/messages', allow: READERS },
    'GET /v1/rooms/{id}/threads': { method: 'GET', path: '/v1/rooms/pub/threads', allow: READERS },
    'GET /v1/threads/{id}': { method: 'GET', path: '/v1/threads/t1', allow: READERS },
    'GET /v1/threads/{id}/messages': { method: 'GET', path: '/v1/threads/t1/messages', allow: READERS },
    'GET /v1/dms': { method: 'GET', path: '/v1/dms', allow: READERS },
    'GET /v1/dms/{id}': { method: 'GET', path: () => `/v1/dms/${dmId()}`, allow: READERS },
    'GET /v1/dms/{id}/messages': { method: 'GET', path: () => `/v1/dms/${dmId()}/messages`, allow: READERS },
    'GET /v1/artifacts?room_id': { method: 'GET', path: '/v1/artifacts?room_id=pub', allow: READERS },
    'GET /v1/artifacts?dm_id': { method: 'GET', path: () => `/v1/artifacts?dm_id=${dmId()}`, allow: READERS },
    // pair passes the route check but is refused as a local sender (it relays remote origins only).
    'POST /v1/messages': {
      method: 'POST',
      path: '/v1/messages',
      body: (k) => ({
        target: { kind: 'room', room_id: 'pub' },
        from: { type: 'agent', id: senderOf(k) },
        parts: [{ kind: 'text', text: `from ${k}` }],
      }),
      allow: ['writer', 'admin', 'alphaOnly', 'agent'],
    },
    'GET /v1/agents': { method: 'GET', path: '/v1/agents', allow: [...READERS, 'pair'] },
    'GET /v1/agents/{id}': { method: 'GET', path: '/v1/agents/alpha', allow: READERS },
    'POST /v1/agents/register': {
      method: 'POST',
      path: '/v1/agents/register',
      body: (k) => ({ requested_agent_id: k === 'alphaOnly' ? 'alpha' : k === 'agent' ? 'gen' : `reg-${k}` }),
      allow: ['attacher', 'adminOnly', 'admin', 'alphaOnly', 'agent'],
    },
    'DELETE /v1/agents/{id}': { method: 'DELETE', path: (k) => `/v1/agents/del-${k}`, allow: ADMINS },
    'POST /v1/apply': { method: 'POST', path: '/v1/apply', body: () => ({ network_id: 'testnet' }), allow: ADMINS },
    'GET /metrics': { method: 'GET', path: '/metrics', allow: ADMINS },
    // Pairings routes refuse self-registered agent tokens although they carry observe.
    'GET /v1/pairings': { method: 'GET', path: '/v1/pairings', allow: ['observer', 'adminOnly', 'admin', 'alphaOnly'] },
    'GET /v1/events/stream': { method: 'GET', path: '/v1/events/stream', allow: READERS },
  };
}

function expected(row: Row, k: Kind): number {
  if (row.allow.includes(k)) return row.ok ?? 200;
  if (BAD.includes(k)) return 401;
  if (k === 'anonymous') return row.anon ?? 401;
  return 403;
}

async function checkRow(c: Ctx, row: Row, kinds: readonly Kind[] = KINDS): Promise<void> {
  const wrong: string[] = [];
  for (const k of kinds) {
    const path = typeof row.path === 'function' ? row.path(k) : row.path;
    const r = await send(c.s, k, c.agentToken, row.method, path, row.body?.(k));
    const want = expected(row, k);
    if (r.status !== want) wrong.push(`${k}: got ${r.status} want ${want} ${r.text.slice(0, 160)}`);
    if (r.status >= 400 && r.body?.code === undefined) wrong.push(`${k}: error without an envelope: ${r.text.slice(0, 120)}`);
  }
  assert.equal(wrong, []);
}

// ---- bearer mode, private reads, open registration ----------------------------------------------

const priv = suite<Ctx>('the route checks with private reads, by credential kind');
let privDm = '';
const privRows = rowsFor(() => privDm);

priv.before(async (c) => {
  c.s = await startApp({
    config: {
      auth: { agent_registration: 'open' },
      rooms: [
        { id: 'pub', members: ['alpha', 'ops'] },
        { id: 'priv', visibility: 'private', members: ['beta'] },
      ],
    },
  });
  const reg = await claimThenJoin(c.s, 'gen', ['pub']);
  c.agentToken = reg.body.agent_token;
  const admin = TOKENS.admin.value;
  const sent = await c.s.post(
    '/v1/messages',
    {
      target: { kind: 'room', room_id: 'pub' },
      from: { type: 'agent', id: 'ops' },
      parts: [{ kind: 'file', url: 'https://x.test/a.txt' }],
    },
    admin,
  );
  assert.is(sent.status, 200, sent.text);
  const th = await c.s.post(
    '/v1/messages',
    {
      target: { kind: 'thread', room_id: 'pub', thread_id: 't1' },
      from: { type: 'agent', id: 'ops' },
      parts: [{ kind: 'text', text: 'in thread' }],
    },
    admin,
  );
  assert.is(th.status, 200, th.text);
  const dm = await c.s.post(
    '/v1/messages',
    {
      target: { kind: 'dm', participant_ids: ['alpha', 'gen'] },
      from: { type: 'agent', id: 'ops' },
      parts: [{ kind: 'text', text: 'dm' }],
    },
    admin,
  );
  assert.is(dm.status, 200, dm.text);
  privDm = (await c.s.get('/v1/dms', admin)).body.dms[0].id;
  c.dmId = privDm;
  for (const k of KINDS) {
    assert.is((await c.s.post('/v1/rooms', { id: `rm-${k}` }, admin)).status, 200);
    assert.is((await c.s.post('/v1/agents/register', { requested_agent_id: `del-${k}` }, admin)).status, 200);
  }
});
priv.after(async (c) => c.s?.dispose());

for (const [name, row] of Object.entries(privRows)) {
  // Under open registration an anonymous caller may make a new claim.
  const r = name === 'POST /v1/agents/register' ? { ...row, allow: [...row.allow, 'anonymous' as const] } : row;
  priv(`${name}: ${r.allow.join(', ')} pass; other valid tokens 403; missing credentials and invalid headers 401`, (c) => checkRow(c, r));
}

// ---- bearer mode, public read, token registration -----------------------------------------------

const pub = suite<Ctx>('the route checks with public read, for anonymous callers and bad credentials');

pub.before(async (c) => {
  c.s = await startApp({
    config: {
      auth: { public_read: true, agent_registration: 'token' },
      rooms: [
        { id: 'pub', members: ['alpha'] },
        { id: 'priv', visibility: 'private', members: ['beta'] },
      ],
    },
  });
  c.agentToken = 'agt_v1_none';
  const admin = TOKENS.admin.value;
  for (const room of ['pub', 'priv']) {
    const th = await c.s.post(
      '/v1/messages',
      {
        target: { kind: 'thread', room_id: room, thread_id: `t-${room}` },
        from: { type: 'agent', id: 'ops' },
        parts: [{ kind: 'image', url: 'https://x.test/i.png' }],
      },
      admin,
    );
    assert.is(th.status, 200, th.text);
  }
  const dm = await c.s.post(
    '/v1/messages',
    { target: { kind: 'dm', participant_ids: ['beta'] }, from: { type: 'agent', id: 'ops' }, parts: [{ kind: 'text', text: 'dm' }] },
    admin,
  );
  c.dmId = (await c.s.get('/v1/dms', admin)).body.dms[0].id;
  assert.is(dm.status, 200, dm.text);
});
pub.after(async (c) => c.s?.dispose());

const PUBLIC_CASES: [string, string, number][] = [
  ['GET', '/v1/network', 200],
  ['GET', '/v1/rooms', 200],
  ['GET', '/v1/rooms/pub', 200],
  ['GET', '/v1/rooms/priv', 401],
  ['GET', '/v1/rooms/pub/messages', 200],
  ['GET', '/v1/rooms/priv/messages', 401],
  ['GET', '/v1/rooms/pub/threads', 200],
  ['GET', '/v1/rooms/priv/threads', 401],
  ['GET', '/v1/threads/t-pub', 200],
  ['GET', '/v1/threads/t-pub/messages', 200],
  ['GET', '/v1/threads/t-priv', 401],
  ['GET', '/v1/threads/t-priv/messages', 401],
  ['GET', '/v1/agents', 200],
  ['GET', '/v1/agents/alpha', 200],
  // SPEC Route checks: GET /v1/artifacts is observe or admin; public read does not list artifacts.
  ['GET', '/v1/artifacts?room_id=pub', 401],
  ['GET', '/v1/artifacts?room_id=priv', 401],
  ['GET', '/v1/artifacts?thread_id=t-priv', 401],
  ['GET', '/v1/dms', 401],
  ['GET', '/v1/dms/DM', 401],
  ['GET', '/v1/dms/DM/messages', 401],
  ['GET', '/v1/artifacts?dm_id=DM', 401],
  ['POST', '/v1/messages', 401],
  ['POST', '/v1/rooms', 401],
  ['PATCH', '/v1/rooms/pub/members', 401],
  ['DELETE', '/v1/rooms/pub', 401],
  ['POST', '/v1/agents/register', 401],
  ['DELETE', '/v1/agents/alpha', 401],
  ['POST', '/v1/apply', 401],
  ['GET', '/metrics', 401],
  ['GET', '/v1/pairings', 401],
  ['GET', '/v1/events/stream', 200],
];

pub('an anonymous caller reads public rooms, threads, history, agents, events and the network, and nothing else', async (c) => {
  const wrong: string[] = [];
  for (const [method, p, want] of PUBLIC_CASES) {
    const body =
      method === 'GET' || method === 'DELETE'
        ? undefined
        : method === 'POST' && p === '/v1/messages'
          ? { target: { kind: 'room', room_id: 'pub' }, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'x' }] }
          : {};
    const r = await send(c.s, 'anonymous', c.agentToken, method, p.replace('DM', c.dmId), body);
    if (r.status !== want) wrong.push(`${method} ${p}: got ${r.status} want ${want}`);
  }
  assert.equal(wrong, []);
});

pub('public reads show only public rooms and their members to an anonymous caller', async (c) => {
  const rooms = await c.s.get('/v1/rooms');
  assert.equal(
    rooms.body.rooms.map((r: { id: string }) => r.id),
    ['pub'],
  );
  const arts = await c.s.get('/v1/artifacts?room_id=pub', TOKENS.observer.value);
  assert.is(arts.body.artifacts.length, 1);
});

pub('a present but invalid Authorization header is 401 on every route, never downgraded to public read', async (c) => {
  const wrong: string[] = [];
  for (const kind of BAD) {
    for (const [method, p] of [['GET', '/healthz'] as const, ...PUBLIC_CASES]) {
      const r = await send(
        c.s,
        kind,
        c.agentToken,
        method,
        p.replace('DM', c.dmId),
        method === 'GET' || method === 'DELETE' ? undefined : {},
      );
      if (r.status !== 401 || r.body?.code !== 'unauthorized') wrong.push(`${kind} ${method} ${p}: got ${r.status}`);
    }
  }
  assert.equal(wrong, []);
});

pub('an empty bearer value is an invalid header, not an anonymous request', async (c) => {
  for (const h of ['Bearer', 'Bearer ', 'bearer  two words', 'Token abc']) {
    const r = await c.s.req('GET', '/v1/rooms', { headers: { authorization: h } });
    assert.is(r.status, 401, h);
  }
});

pub('a valid under-scoped token is 403 on public routes, not treated as anonymous', async (c) => {
  for (const p of ['/v1/rooms', '/v1/rooms/pub', '/v1/rooms/pub/messages', '/v1/agents']) {
    const r = await c.s.get(p, TOKENS.writer.value);
    assert.is(r.status, 403, p);
    assert.is(r.body.code, 'forbidden');
  }
});

pub('a credentialed caller that cannot see a private room gets 404, an anonymous one 401', async (c) => {
  assert.is((await c.s.get('/v1/rooms/priv', TOKENS.alphaOnly.value)).status, 404);
  assert.is((await c.s.get('/v1/rooms/priv/messages', TOKENS.alphaOnly.value)).status, 404);
  assert.is((await c.s.get('/v1/threads/t-priv', TOKENS.alphaOnly.value)).status, 404);
  assert.is((await c.s.get('/v1/rooms/priv')).status, 401);
  assert.is((await c.s.get('/v1/rooms/priv', TOKENS.observer.value)).status, 200);
});

pub('a route that does not exist is 404 and a wrong method 405 whatever the credential', async (c) => {
  for (const kind of ['anonymous', 'invalid', 'observer'] as Kind[]) {
    assert.is((await send(c.s, kind, c.agentToken, 'GET', '/v1/nope')).status, 404, kind);
    assert.is((await send(c.s, kind, c.agentToken, 'PUT', '/v1/rooms')).status, 405, kind);
  }
});

priv.run();
pub.run();
