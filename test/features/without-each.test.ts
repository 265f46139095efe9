// The server without each optional feature (#39 part 2): the app started in this process on a real
// sqlite store, with one of receipts, reactions, webhooks, OAuth, the console, MCP over HTTP,
// message edits and deletes, and files left out of its feature list, still does what the core does (agents,
// rooms, messages sent, read back and received live, threads, DMs, the core's refusals), and serves
// none of that feature's routes.
// The routes come from the feature itself (its factory's `routes`), so a route it gains is checked
// without editing this file. The same core steps with the full default list are the control: they
// show the paths walked here are the ones that work.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { emptyImage } from '../../src/store/sqlite/schema.js';
import type { FeatureFactory } from '../../src/feature.js';
import type { Route } from '../../src/http/router.js';
import { defaultFeatures } from '../../src/features.js';
import { consoleFeature } from '../../src/console/feature.js';
import { filesFeature } from '../../src/files/feature.js';
import { mcpHttpFeature } from '../../src/mcp-http/feature.js';
import { messageLifecycleFeature } from '../../src/message-lifecycle/feature.js';
import { oauthFeature } from '../../src/oauth/feature.js';
import { reactionsFeature } from '../../src/reactions/feature.js';
import { receiptsFeature } from '../../src/receipts/feature.js';
import { deliveryFeature } from '../../src/delivery/feature.js';
import { webhooksFeature } from '../../src/webhooks/feature.js';
import { a2aInboundFeature } from '../../src/a2a/inbound/feature.js';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';
import { attachAs, SseClient } from '../helpers/live.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;

const OPTIONAL: readonly { name: string; factory: FeatureFactory }[] = [
  { name: 'receipts', factory: receiptsFeature },
  { name: 'reactions', factory: reactionsFeature },
  { name: 'webhooks', factory: webhooksFeature },
  { name: 'oauth', factory: oauthFeature },
  { name: 'console', factory: consoleFeature },
  { name: 'mcp-http', factory: mcpHttpFeature },
  { name: 'message-lifecycle', factory: messageLifecycleFeature },
  { name: 'delivery', factory: deliveryFeature },
  { name: 'files', factory: filesFeature },
  { name: 'a2a-inbound', factory: a2aInboundFeature },
];

/** The tables a closed sqlite store holds: its file opened as bytes with sql.js, never written back. */
async function tablesIn(dbFile: string): Promise<string[]> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(fs.readFileSync(dbFile));
  try {
    const rows = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0]?.values ?? [];
    return rows.map((r) => String(r[0]));
  } finally {
    db.close();
  }
}

/** Tables the core keeps whatever the feature list. */
const CORE_TABLES = ['agents', 'dms', 'events', 'messages', 'meta', 'rooms', 'threads'];

/** The optional features that keep stored concerns of their own (store/part.ts). */
const STORING = ['reactions', 'console', 'webhooks', 'receipts', 'files'];

/**
 * The sqlite tables a feature's store parts make, read from its own declaration: a new database
 * made with those parts, less one made with none.
 */
async function tablesOf(factory: FeatureFactory): Promise<string[]> {
  const SQL = await initSqlJs();
  const names = (image: Uint8Array) => {
    const db = new SQL.Database(image);
    try {
      return (db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map((r) => String(r[0]));
    } finally {
      db.close();
    }
  };
  const core = new Set(names(emptyImage(SQL, [])));
  return names(emptyImage(SQL, factory.store ?? [])).filter((n) => !core.has(n));
}

/** The app on a fresh temp folder (sqlite in .svc/svc.db) with `features`. */
function start(features: readonly FeatureFactory[]): Promise<AppServer> {
  return startApp({
    features,
    config: { auth: { agent_registration: 'open' }, rooms: [{ id: 'general', members: ['alpha'] }] },
  });
}

/**
 * What the server does with any feature list: an agent claims its id, a room is made, a message
 * is sent over HTTP and received over the WebSocket attachment and an SSE stream, read back from
 * the room's history, answered in a thread, and a DM is sent and received; the core's refusals
 * answer as their own tests assert them.
 */
async function coreSuite(s: AppServer): Promise<void> {
  const beta = (await claimThenJoin(s, 'beta', ['general'])).body.agent_token as string;
  assert.type(beta, 'string');

  const room = await s.post('/v1/rooms', { id: 'lab', name: 'Lab', members: ['alpha', 'beta'] }, ADMIN);
  assert.is(room.status, 200, room.text);
  assert.equal(room.body.members, ['alpha', 'beta']);
  const again = await s.post('/v1/rooms', { id: 'lab' }, ADMIN);
  assert.is(again.status, 409, again.text);
  assert.is(again.body.code, 'conflict');

  const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'alpha' } }, { token: ALPHA });
  const sse = await SseClient.open(s, { token: ADMIN });
  try {
    assert.is(sse.status, 200, sse.body);
    const sent = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'lab' }, from: { type: 'agent', id: 'beta' }, parts: [{ kind: 'text', text: 'hello lab' }] },
      beta,
    );
    assert.is(sent.status, 200, sent.text);
    const id = sent.body.message_id as string;
    const frame = await c.message('hello lab');
    assert.is(frame.event.message.id, id);
    c.ack(frame.cursor);
    await sse.next((f) => f.event === 'message.created' && f.json?.message?.id === id, 5000);

    const history = await s.get('/v1/rooms/lab/messages', ADMIN);
    assert.is(history.status, 200, history.text);
    assert.equal(
      (history.body.messages as Json[]).filter((m) => m.id === id).map((m) => m.parts),
      [[{ kind: 'text', text: 'hello lab' }]],
    );

    const reply = await s.post(
      '/v1/messages',
      {
        target: { kind: 'thread', room_id: 'lab', thread_id: 'lab-thread', parent_message_id: id },
        from: { type: 'agent', id: 'alpha' },
        parts: [{ kind: 'text', text: 'a reply' }],
      },
      ALPHA,
    );
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.body.thread_created, true);
    const thread = await s.get('/v1/threads/lab-thread/messages', ADMIN);
    assert.is(thread.status, 200, thread.text);
    assert.equal(
      (thread.body.messages as Json[]).map((m) => m.id),
      [reply.body.message_id],
    );
    await c.message('a reply');

    const dm = await s.post(
      '/v1/messages',
      {
        target: { kind: 'dm', participant_ids: ['alpha'] },
        from: { type: 'agent', id: 'beta' },
        parts: [{ kind: 'text', text: 'just us' }],
      },
      beta,
    );
    assert.is(dm.status, 200, dm.text);
    assert.is(dm.body.dm_created, true);
    const live = await c.message('just us');
    assert.is(live.event.message.id, dm.body.message_id);
    const dms = (await s.get('/v1/dms', ALPHA)).body.dms as Json[];
    const ours = dms.find((d) => d.participant_ids.join() === 'testnet:alpha,testnet:beta');
    assert.ok(ours, JSON.stringify(dms));
    const dmHistory = await s.get(`/v1/dms/${ours.id}/messages`, ALPHA);
    assert.is(dmHistory.status, 200, dmHistory.text);
    assert.equal(
      (dmHistory.body.messages as Json[]).map((m) => m.id),
      [dm.body.message_id],
    );
  } finally {
    sse.close();
    await c.close();
  }

  const anonymous = await s.get('/v1/rooms');
  assert.is(anonymous.status, 401, anonymous.text);
  const nowhere = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'nowhere' }, from: { type: 'agent', id: 'beta' }, parts: [{ kind: 'text', text: 'x' }] },
    beta,
  );
  assert.is(nowhere.status, 404, nowhere.text);
  assert.is(nowhere.body.code, 'not_found');
}

/**
 * The routes each optional feature serves, as the feature itself declares them: each factory built
 * once against an app started with no features, its routes read (never added to a router) and the
 * feature closed again. A factory is built once per app (it registers its metrics there).
 */
async function declaredRoutes(): Promise<Map<FeatureFactory, Route[]>> {
  const bare = await startApp({ features: [], config: { store: { backend: 'memory' } } });
  const routes = new Map<FeatureFactory, Route[]>();
  try {
    for (const { factory } of OPTIONAL) {
      const f = factory(bare.app);
      routes.set(factory, f.routes ?? []);
      await f.close?.();
    }
  } finally {
    await bare.dispose();
  }
  return routes;
}

/** A request path for `route`: each parameter filled with a plain value. */
const concrete = (route: Route): string => route.path.replace(/(?<=\/):[A-Za-z0-9_]+/g, 'x1');

/**
 * One request to `route` as an operator would make it (a body of `{}` where it declares a JSON schema); the
 * answer's code and error. Sent without the OpenAPI check of the test requester: these are probes
 * with made-up parameters, and the OAuth provider's own error bodies are not the document's.
 */
async function ask(s: AppServer, route: Route): Promise<{ status: number; text: string; code?: string; error?: string }> {
  const withBody = route.schema !== undefined;
  const res = await fetch(`${s.url}${concrete(route)}`, {
    method: route.method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(withBody ? { 'content-type': 'application/json' } : {}) },
    ...(withBody ? { body: '{}' } : {}),
  });
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, text, code: body?.code, error: body?.error };
}

/** The OpenAPI document's operations as `METHOD /path/{param}`. */
async function documented(s: AppServer): Promise<Set<string>> {
  const doc = (await s.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  return new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
}
const operation = (r: Route): string => `${r.method} ${r.path.replace(/(?<=\/):([A-Za-z0-9_]+)/g, '{$1}')}`;

/** Routes of every feature family the issue names: each must come out of some feature's declaration. */
const FAMILIES: Record<string, readonly string[]> = {
  receipts: ['GET /v1/messages/:id/receipts', 'POST /v1/messages/:id/read'],
  reactions: ['GET /v1/messages/:id/reactions', 'PUT /v1/messages/:id/reactions/:id'],
  webhooks: ['GET /v1/webhooks'],
  oauth: ['GET /.well-known/oauth-authorization-server/oauth', 'GET /.well-known/oauth-protected-resource', 'POST /oauth/token'],
  console: ['GET /console'],
  'mcp-http': ['POST /v1/mcp'],
  'message-lifecycle': ['PATCH /v1/messages/:id', 'DELETE /v1/messages/:id', 'GET /v1/messages/:id/versions'],
  delivery: ['GET /v1/agents/:id/delivery'],
  files: ['POST /v1/files', 'GET /v1/files/:id'],
  'a2a-inbound': ['GET /.well-known/agent-card.json', 'GET /v1/a2a/agents/:id/.well-known/agent-card.json', 'POST /v1/a2a/agents/:id'],
};

const t = suite<{ routes: Map<FeatureFactory, Route[]> }>('the server without each optional feature');
t.before(async (c) => {
  c.routes = await declaredRoutes();
});

t('control: with the full default list the core suite passes, every optional route is served and its tables are made', async (c) => {
  const s = await start(defaultFeatures);
  try {
    await coreSuite(s);
    const doc = await documented(s);
    for (const { name, factory } of OPTIONAL) {
      const routes = c.routes.get(factory)!;
      assert.ok(routes.length > 0, `${name} declares routes`);
      const declared = routes.map((r) => `${r.method} ${r.path.replace(/(?<=\/):[A-Za-z0-9_]+/g, ':id')}`);
      for (const want of FAMILIES[name]!) assert.ok(declared.includes(want), `${name} declares ${want}: ${declared.join(', ')}`);
      for (const r of routes) {
        const m = s.app.router.match(r.method, concrete(r));
        assert.ok(m.kind === 'found' && m.route.method === r.method && m.route.path === r.path, `${r.method} ${r.path} is routed`);
        const res = await ask(s, r);
        assert.is.not(res.error, `no route for ${concrete(r)}`, `${r.method} ${r.path}: ${res.status} ${res.text}`);
      }
      assert.ok(
        routes.some((r) => doc.has(operation(r))),
        `${name}'s routes are in the OpenAPI document`,
      );
    }
    await s.stop();
    const tables = await tablesIn(path.join(s.dir, '.svc', 'svc.db'));
    for (const { name, factory } of OPTIONAL)
      for (const table of await tablesOf(factory)) assert.ok(tables.includes(table), `${name}'s table ${table} in ${tables.join(', ')}`);
  } finally {
    await s.dispose();
  }
});

for (const { name, factory } of OPTIONAL) {
  t(`without ${name}: the core suite passes, its routes answer 404 and are not documented, the core tables exist`, async (c) => {
    const s = await start(defaultFeatures.filter((f) => f !== factory));
    const dbFile = path.join(s.dir, '.svc', 'svc.db');
    try {
      const routes = c.routes.get(factory)!;
      assert.ok(routes.length > 0, `${name} declares routes`);
      await coreSuite(s);
      const doc = await documented(s);
      for (const r of routes) {
        const p = concrete(r);
        const m = s.app.router.match(r.method, p);
        assert.not.ok(m.kind === 'found' && m.route.method === r.method && m.route.path === r.path, `${r.method} ${r.path} is routed`);
        const res = await ask(s, r);
        assert.is(res.status, 404, `${r.method} ${p}: ${res.status} ${res.text}`);
        assert.equal([res.code, res.error], ['not_found', `no route for ${p}`], res.text);
        assert.not.ok(doc.has(operation(r)), `${operation(r)} is documented`);
      }
      await s.stop();
      const tables = await tablesIn(dbFile);
      for (const table of CORE_TABLES) assert.ok(tables.includes(table), `table ${table} in ${tables.join(', ')}`);
      const own = await tablesOf(factory);
      assert.is(own.length > 0, STORING.includes(name), `${name}'s own tables: ${own.join(', ')}`);
      for (const table of own) assert.not.ok(tables.includes(table), `${name}'s table ${table} was made without it`);
    } finally {
      await s.dispose();
    }
  });
}

t.run();
