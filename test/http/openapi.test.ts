// The OpenAPI document at GET /v1/openapi.json: valid OpenAPI 3.1 (checked by a validator
// package), public and cacheable, in step with the router (every route documented, nothing
// documented that is no route), and true: every JSON answer of a real session matches it.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { TOKENS, roomMessage, eventually, type Json, type Res, type ReqOptions } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { checkResponse, checkSchema, type OpenApiDocument } from '../helpers/openapi-check.js';
import { SseClient } from '../helpers/live.js';
import { createApp } from '../../src/app.js';
import { defaultFeatures } from '../../src/features.js';
import { webhooksFeature } from '../../src/webhooks/feature.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { CATALOGUE } from '../../src/errors.js';
import { buildOpenApi, openApiPath } from '../../src/http/openapi/document.js';
import { Validator } from '@seriousme/openapi-schema-validator';

const admin = TOKENS.admin.value;

const t = suite<{ s: AppServer; doc: OpenApiDocument; res: Res }>('GET /v1/openapi.json');

t.before(async (c) => {
  c.s = await startApp();
  c.res = await c.s.get('/v1/openapi.json');
  c.doc = c.res.body as OpenApiDocument;
});
t.after(async (c) => c.s?.dispose());

t('the document answers 200 without a token, as JSON, with an ETag and a cache header', async ({ res }) => {
  assert.is(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(res.headers.get('cache-control') ?? '', /max-age=\d+/);
  assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/);
  assert.is(res.body.openapi, '3.1.0');
});

t('a client holding the current ETag gets 304 without a body; another ETag gets the document', async ({ s, res }) => {
  const etag = res.headers.get('etag')!;
  const same = await s.req('GET', '/v1/openapi.json', { headers: { 'if-none-match': etag } });
  assert.is(same.status, 304);
  assert.is(same.text, '');
  assert.is(same.headers.get('etag'), etag);
  const other = await s.req('GET', '/v1/openapi.json', { headers: { 'if-none-match': '"stale"' } });
  assert.is(other.status, 200);
  assert.is(other.text, res.text);
});

t('the document is valid OpenAPI 3.1 by the validator package', async ({ doc }) => {
  const v = new Validator();
  const r = await v.validate(structuredClone(doc) as unknown as Record<string, unknown>);
  assert.ok(r.valid, `not valid OpenAPI: ${JSON.stringify(r.errors, null, 2)?.slice(0, 3000)}`);
  assert.is(v.version, '3.1');
});

t('every route of the router is documented, and every documented operation is a route', async ({ doc }) => {
  const loaded = parseConfig(
    { network: { id: 'routes' }, store: { backend: 'memory' }, auth: { mode: 'none' } },
    { baseDir: tmpdir(), env: {} },
  );
  const app = await createApp(loaded, { log: silentLogger, features: defaultFeatures });
  try {
    const routes = app.router.routes();
    assert.equal(buildOpenApi(routes, 'x').problems, []);
    const inRouter = new Set(routes.map((r) => `${r.method} ${openApiPath(r.path)}`));
    const inDoc = new Set(
      Object.entries(doc.paths).flatMap(([p, ops]) =>
        Object.keys(ops)
          .filter((k) => k !== 'parameters')
          .map((m) => `${m.toUpperCase()} ${p}`),
      ),
    );
    assert.equal(
      [...inRouter].filter((k) => !inDoc.has(k)),
      [],
      'routes missing from the document',
    );
    assert.equal(
      [...inDoc].filter((k) => !inRouter.has(k)),
      [],
      'documented operations that are no route',
    );
    assert.ok(
      inDoc.has('GET /v1/openapi.json') &&
        inDoc.has('GET /v1/events/stream') &&
        inDoc.has('GET /console/api/session') &&
        inDoc.has('GET /v1/pairings'),
    );
  } finally {
    await app.close();
  }
});

// A feature that keeps its routes' notes (Route.doc) takes them along: a server without the
// webhooks feature has no webhook route, and its document names none (no note is left over).
t('a server without the webhooks feature documents exactly its routes', async () => {
  const loaded = parseConfig(
    { network: { id: 'routes' }, store: { backend: 'memory' }, auth: { mode: 'none' } },
    { baseDir: tmpdir(), env: {} },
  );
  const app = await createApp(loaded, { log: silentLogger, features: defaultFeatures.filter((f) => f !== webhooksFeature) });
  try {
    const built = buildOpenApi(app.router.routes(), 'x');
    assert.equal(built.problems, []);
    assert.not.ok(JSON.stringify(built.document).includes('/v1/webhooks'));
  } finally {
    await app.close();
  }
});

t('each operation has its own operationId, summary and tag', ({ doc }) => {
  const ops = Object.values(doc.paths).flatMap((o) => Object.values(o) as Json[]);
  const ids = ops.map((o) => o.operationId as string);
  assert.equal(
    ids.filter((x, i) => ids.indexOf(x) !== i),
    [],
    'duplicate operationIds',
  );
  for (const o of ops) assert.ok(o.summary && o.tags?.[0] !== 'undocumented', o.operationId);
});

t('the scopes a route needs are its security requirement; public routes need none', ({ doc }) => {
  const rooms = doc.paths['/v1/rooms'] as Json;
  assert.equal(rooms.post.security, [{ bearer: ['admin'] }, { console_session: ['admin'] }]);
  // Public read: anonymous callers may be let in, so an empty requirement is listed too.
  assert.equal(rooms.get.security, [{ bearer: ['observe', 'admin', 'pair'] }, { console_session: ['observe', 'admin', 'pair'] }, {}]);
  assert.is(rooms.get['x-svc-access'].anonymous, 'public_read');
  assert.equal((doc.paths['/healthz'] as Json).get.security, []);
  assert.equal((doc.paths['/v1/openapi.json'] as Json).get.security, []);
  assert.is((doc.components as Json).securitySchemes.bearer.scheme, 'bearer');
});

t('the error envelope names exactly the codes of the error catalogue', ({ doc }) => {
  const codes = (doc.components as Json).schemas.Error.properties.code.enum as string[];
  assert.equal([...codes].sort(), Object.keys(CATALOGUE).sort());
});

t('the response check rejects a body that breaks the documented shape, and says where', ({ doc }) => {
  const room = {
    id: 'r',
    network_id: 'n',
    fqid: 'svc://n/rooms/r',
    name: 'r',
    members: [],
    visibility: 'public',
    write_policy: 'members',
    created_at: '2026-01-01T00:00:00Z',
  };
  checkResponse(doc, 'GET', '/v1/rooms/r', 200, room);
  assert.throws(() => checkResponse(doc, 'GET', '/v1/rooms/r', 200, { ...room, members: 'all' }), /\/members/);
  assert.throws(() => checkResponse(doc, 'GET', '/v1/rooms/{room_id}', 404, { error: 'x' }), /code/);
  assert.throws(() => checkResponse(doc, 'GET', '/v1/nowhere', 200, {}), /no documented path/);
  assert.throws(() => checkResponse(doc, 'PUT', '/v1/rooms', 200, {}), /documents no PUT/);
  assert.throws(() => checkResponse(doc, 'GET', '/v1/nowhere', 404, { error: 'no route' }), /code/);
  assert.throws(() => checkResponse(doc, 'GET', '/healthz', 200, { status: 'fine' }), /status/);
});

t.run();

// ---- a real session, every JSON answer checked ------------------------------------------------

const e2e = suite<{ s: AppServer; doc: OpenApiDocument; checked: string[] }>('every JSON answer of a session matches the document');

e2e.before(async (c) => {
  c.s = await startApp();
  c.doc = (await c.s.get('/v1/openapi.json')).body as OpenApiDocument;
  c.checked = [];
});
e2e.after(async (c) => c.s?.dispose());

/** One request; its JSON answer is checked against the document (and its status against `status`). */
async function call(
  c: { s: AppServer; doc: OpenApiDocument; checked: string[] },
  method: string,
  path: string,
  status: number,
  o: ReqOptions = {},
): Promise<Json> {
  const r = await c.s.req(method, path, o);
  assert.is(r.status, status, `${method} ${path}: ${r.text}`);
  checkResponse(c.doc, method, path, r.status, r.body);
  c.checked.push(`${method} ${path.split('?')[0]} ${r.status}`);
  return r.body;
}

e2e('register, create, send, read, search, list, and the errors: every answer is documented', async (c) => {
  await call(c, 'GET', '/healthz', 200);
  await call(c, 'GET', '/readyz', 200);
  await call(c, 'GET', '/v1/network', 200, { token: admin });
  const sse = await SseClient.open(c.s, { token: admin });
  assert.is(sse.status, 200);
  const reg = await call(c, 'POST', '/v1/agents/register', 200, { token: admin, body: { requested_agent_id: 'ada', name: 'Ada' } });
  assert.is(reg.agent_id, 'ada');
  await call(c, 'POST', '/v1/agents/register', 200, { token: TOKENS.attacher.value, body: { requested_agent_id: 'bob' } });
  await call(c, 'POST', '/v1/rooms', 200, { token: admin, body: { id: 'general', name: 'General', members: ['ada', 'bob'] } });
  await call(c, 'PATCH', '/v1/rooms/general/members', 200, { token: admin, body: { add: ['bob'] } });
  const sent = await call(c, 'POST', '/v1/messages', 200, { token: admin, body: roomMessage('general', 'ada', 'hello zebra world') });
  await call(c, 'POST', '/v1/messages', 200, {
    token: admin,
    body: {
      ...roomMessage('general', 'ada', 'a reply in a thread'),
      target: { kind: 'thread', room_id: 'general', thread_id: 'plans', parent_message_id: sent.message_id },
    },
  });
  await call(c, 'POST', '/v1/messages', 200, {
    token: admin,
    body: {
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: 'ada' },
      parts: [{ kind: 'url', url: 'https://example.com/report.pdf', filename: 'report.pdf' }],
    },
  });
  await call(c, 'POST', '/v1/messages', 200, {
    token: admin,
    body: {
      target: { kind: 'dm', participant_ids: ['ada', 'bob'] },
      from: { type: 'agent', id: 'ada' },
      parts: [{ kind: 'text', text: 'psst' }],
    },
  });

  // The live stream's events match the Event schema (room, thread, DM and message events).
  await sse.message('psst');
  sse.close();
  const events = sse.all.filter((f) => f.json !== undefined);
  assert.ok(events.length >= 6, `events: ${events.map((f) => f.event).join(', ')}`);
  for (const f of events) checkSchema(c.doc, 'Event', f.json);
  assert.throws(() => checkSchema(c.doc, 'Event', { ...events[0]!.json, type: 'message.lost' }), /type/);

  await call(c, 'GET', '/v1/rooms', 200, { token: admin });
  await call(c, 'GET', '/v1/rooms/general', 200, { token: admin });
  await call(c, 'GET', '/v1/rooms/general/messages?limit=2', 200, { token: admin });
  const threads = await call(c, 'GET', '/v1/rooms/general/threads', 200, { token: admin });
  assert.is(threads.threads.length, 1);
  await call(c, 'GET', `/v1/threads/${encodeURIComponent(threads.threads[0].id)}`, 200, { token: admin });
  await call(c, 'GET', `/v1/threads/${encodeURIComponent(threads.threads[0].id)}/messages`, 200, { token: admin });
  const dms = await call(c, 'GET', '/v1/dms', 200, { token: admin });
  assert.is(dms.dms.length, 1);
  await call(c, 'GET', `/v1/dms/${encodeURIComponent(dms.dms[0].id)}`, 200, { token: admin });
  await call(c, 'GET', `/v1/dms/${encodeURIComponent(dms.dms[0].id)}/messages`, 200, { token: admin });
  await call(c, 'GET', '/v1/artifacts?room_id=general', 200, { token: admin });
  await eventually(async () => (await c.s.get('/v1/search?q=zebra', admin)).body?.messages?.length === 1, 5000, 'the search index');
  await call(c, 'GET', '/v1/search?q=zebra&room_id=general', 200, { token: admin });
  await call(c, 'GET', '/v1/agents', 200, { token: admin });
  await call(c, 'GET', '/v1/agents/ada', 200, { token: admin });
  await call(c, 'GET', '/v1/pairings', 200, { token: admin });
  await call(c, 'POST', '/v1/apply', 200, { token: admin, body: { network_id: c.s.networkId, rooms: [{ id: 'ops', name: 'Ops' }] } });
  await call(c, 'GET', '/console/api/session', 200, { token: admin });
  await call(c, 'GET', '/console/api/presence', 200, { token: admin });
  await call(c, 'POST', '/console/api/sign-in-codes', 201, { token: admin, body: {} });
  await call(c, 'GET', '/v1/pairings/nowhere/network', 404, { token: admin });
  await call(c, 'DELETE', '/v1/agents/bob', 200, { token: admin });
  await call(c, 'DELETE', '/v1/rooms/ops', 200, { token: admin });

  // Errors answer with the documented envelope.
  await call(c, 'GET', '/v1/rooms/nowhere', 404, { token: admin });
  await call(c, 'GET', '/v1/rooms', 401);
  await call(c, 'GET', '/v1/rooms', 401, { token: 'not-a-token' });
  await call(c, 'POST', '/v1/rooms', 403, { token: TOKENS.observer.value, body: { id: 'x' } });
  await call(c, 'POST', '/v1/messages', 400, { token: admin, body: { target: { kind: 'room' } } });
  await call(c, 'GET', '/v1/search', 400, { token: admin });
  await call(c, 'GET', '/v1/rooms?limit=zero', 400, { token: admin });
  await call(c, 'GET', '/v1/rooms?before=nope', 422, { token: admin });
  await call(c, 'POST', '/v1/rooms', 409, { token: admin, body: { id: 'general' } });
  await call(c, 'GET', '/v1/nowhere', 404, { token: admin });
  // The console answers its own 401 page, but an invalid header is the gate's envelope first.
  await call(c, 'GET', '/console/', 401, { token: 'not-a-token' });
  await call(c, 'PUT', '/v1/rooms', 405, { token: admin });
  assert.ok(c.checked.length >= 40, c.checked.join('\n'));
});

e2e.run();

// ---- the pairing routes, over a real direct pairing ------------------------------------------

const paired = suite<{ a: AppServer; c: AppServer; doc: OpenApiDocument; checked: string[] }>('the pairing routes answer as documented');
const PAIR_TOKEN = 'openapi-pair-secret-5d1c7e0a';

paired.before(async (ctx) => {
  ctx.a = await startApp({
    config: {
      network: { id: 'alpha-net', name: 'Alpha Net' },
      auth: {
        tokens: [
          { ...TOKENS.admin, scopes: [...TOKENS.admin.scopes] },
          { id: 'pair-in', value: PAIR_TOKEN, scopes: ['pair'] },
        ],
      },
      rooms: [{ id: 'lobby', members: ['ada'] }],
    },
  });
  ctx.c = await startApp({
    config: {
      network: { id: 'gamma-net', name: 'Gamma Net' },
      pairings: [
        {
          id: 'to-alpha',
          remote_network_id: 'alpha-net',
          remote_network_name: 'Alpha Net',
          remote_base_url: ctx.a.url,
          token: PAIR_TOKEN,
          bound: true,
        },
      ],
    },
  });
  ctx.doc = (await ctx.c.get('/v1/openapi.json')).body as OpenApiDocument;
  ctx.checked = [];
});
paired.after(async (ctx) => {
  await ctx.c?.dispose();
  await ctx.a?.dispose();
});

paired('the pairing list and the proxied network, rooms and agents match the document', async (ctx) => {
  const c = { s: ctx.c, doc: ctx.doc, checked: ctx.checked };
  await eventually(async () => (await ctx.c.get('/v1/pairings/to-alpha/network', admin)).status === 200, 10_000, 'the paired network');
  const list = await call(c, 'GET', '/v1/pairings', 200, { token: admin });
  assert.is(list.pairings[0].id, 'to-alpha');
  const remote = await call(c, 'GET', '/v1/pairings/to-alpha/network', 200, { token: admin });
  assert.is(remote.id, 'alpha-net');
  const rooms = await call(c, 'GET', '/v1/pairings/to-alpha/rooms', 200, { token: admin });
  assert.equal(
    rooms.rooms.map((r: Json) => r.id),
    ['lobby'],
  );
  await call(c, 'GET', '/v1/pairings/to-alpha/agents', 200, { token: admin });
  await call(c, 'GET', '/v1/pairings/to-alpha/rooms', 401);
});

paired.run();
