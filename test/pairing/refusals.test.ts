// Two directly paired servers where the receiving side has not granted membership yet: the refused
// relay is counted by reason with its message id, and shows in GET /v1/pairings, the network
// document's warnings (the console), svc doctor, /metrics and the log, with the fix on the other
// side. On sqlite and on Postgres. A is a `svc serve` process (the test edits its svc.yaml and it
// notices); B, whose config never changes, runs in the test process.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendTo, editConfigFile } from '../../src/config/edit.js';
import { cli } from '../helpers/cli.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { eventually, roomMessage, startServer, TOKENS, type HttpServer, type Json, type TestServer } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const PAIR_TOKEN = 'refusal-pair-secret-5c1d7e9a03';
const WAIT = 20_000;
const tokens = () => [
  ...Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes], ...('agents' in t ? { agents: [...t.agents] } : {}) })),
  { id: 'ab', value: PAIR_TOKEN, scopes: ['pair'] },
];

interface Ctx {
  a: TestServer;
  b: AppServer;
  pg?: PgSchema;
  env: Record<string, string>;
}

/** A (alpha-net) relays general to B (beta-net), where general's members do not include alpha-net:alpha. */
async function pair(ctx: Ctx, store?: (name: string) => Record<string, Json>): Promise<void> {
  const storeOf = (name: string) => (store ? { store: store(name) } : {});
  ctx.a = await startServer({
    env: ctx.env,
    config: {
      network: { id: 'alpha-net', name: 'Alpha' },
      server: { pairing_check_interval_ms: 300 },
      auth: { tokens: tokens() },
      rooms: [{ id: 'general', members: ['alpha'] }],
      ...storeOf('a'),
    },
  });
  ctx.b = await startApp({
    env: ctx.env,
    config: {
      network: { id: 'beta-net', name: 'Beta' },
      server: { pairing_check_interval_ms: 300 },
      auth: { tokens: tokens() },
      rooms: [{ id: 'general', members: ['beta'], federation: { pairings: ['ab'] } }],
      pairings: [{ id: 'ab', remote_network_id: 'alpha-net', remote_base_url: ctx.a.url, token: PAIR_TOKEN, bound: true }],
      ...storeOf('b'),
    },
  });
  editConfigFile(ctx.a.configFile, (doc) => {
    appendTo(doc, ['pairings'], { id: 'ab', remote_network_id: 'beta-net', remote_base_url: ctx.b.url, token: PAIR_TOKEN, bound: true });
    doc.setIn(['rooms', 0, 'federation'], doc.createNode({ pairings: ['ab'] }));
  });
  await eventually(async () => (await pairingAt(ctx.a))?.status === 'connected', WAIT, 'A connected to B');
}

async function pairingAt(s: HttpServer): Promise<Json> {
  const r = await s.get('/v1/pairings', TOKENS.observer.value);
  assert.is(r.status, 200, r.text);
  return (r.body.pairings as Json[]).find((p) => p.id === 'ab');
}

async function refusedShowsEverywhere(ctx: Ctx): Promise<void> {
  const r = await ctx.a.post('/v1/messages', roomMessage('general', 'alpha', 'before membership'), TOKENS.alphaOnly.value);
  assert.is(r.status, 200, r.text);
  const id = r.body.message_id as string;
  await eventually(async () => (await pairingAt(ctx.a))?.refused?.total === 1, WAIT, 'the refusal is counted');

  const fix = 'on beta-net: svc rooms members general --add alpha-net:alpha';
  const p = await pairingAt(ctx.a);
  assert.equal(p.refused.by_reason, { forbidden: 1 });
  assert.is(p.refused.recent.length, 1);
  assert.equal(
    [
      p.refused.recent[0].message_id,
      p.refused.recent[0].reason,
      p.refused.recent[0].status,
      p.refused.recent[0].room_id,
      p.refused.recent[0].fix,
    ],
    [id, 'forbidden', 403, 'general', fix],
  );
  // The receiving side counts nothing: it refused, it did not relay.
  assert.not.ok((await pairingAt(ctx.b)).refused);

  const doc = await ctx.a.get('/v1/network', TOKENS.admin.value);
  const w = (doc.body.warnings as Json[]).find((x) => x.code === 'relay_refused');
  assert.ok(w, doc.text);
  assert.is(w.action, fix);
  assert.match(w.message, id);
  // Room and message ids stay with those who may read the pairings.
  const attacher = await ctx.a.get('/v1/network', TOKENS.attacher.value);
  assert.is(attacher.status, 200);
  assert.not.ok((attacher.body.warnings as Json[]).some((x) => x.code === 'relay_refused'));

  const metrics = await ctx.a.get('/metrics', TOKENS.admin.value);
  assert.match(metrics.text, 'svc_relay_refused_total{pairing="ab",reason="forbidden"} 1');

  const doctor = await cli(['doctor', '--config', ctx.a.configFile, '--url', ctx.a.url, '--token', TOKENS.admin.value], { env: ctx.env });
  const line = doctor.stdout.split('\n').find((l) => l.includes('pairing ab refusals'));
  assert.ok(line, doctor.stdout + doctor.stderr);
  assert.match(line!, `beta-net refused 1 relayed message (1 forbidden; last: ${id})`);
  assert.match(line!, fix);

  const listing = await cli(['invite', 'list', '--url', ctx.a.url, '--token', TOKENS.observer.value], { env: ctx.env });
  assert.is(listing.code, 0, listing.stderr);
  assert.match(listing.stdout, /ab\s+beta-net\s+connected\s+1 \(1 forbidden\)/);
  assert.match(listing.stdout, `ab: last refused ${id}; not retried. Fix ${fix}`);

  assert.match(ctx.a.output(), `message_id=${id}`);
  assert.match(ctx.a.output(), fix);

  // Nothing is retried: once granted, a new message flows and the refused one stays absent at B.
  assert.is(
    (await ctx.b.req('PATCH', '/v1/rooms/general/members', { token: TOKENS.admin.value, body: { add: ['alpha-net:alpha'] } })).status,
    200,
  );
  const later = await ctx.a.post('/v1/messages', roomMessage('general', 'alpha', 'after membership'), TOKENS.alphaOnly.value);
  assert.is(later.status, 200, later.text);
  await eventually(
    async () =>
      (await ctx.b.get('/v1/rooms/general/messages', TOKENS.admin.value)).body?.messages?.some((m: Json) => m.id === later.body.message_id),
    WAIT,
    'the later message at B',
  );
  const atB = (await ctx.b.get('/v1/rooms/general/messages', TOKENS.admin.value)).body.messages as Json[];
  assert.not.ok(atB.some((m) => m.id === id));
  assert.is((await pairingAt(ctx.a)).refused.total, 1);
}

const sqlite = suite<Ctx>('refused relays on sqlite');
sqlite.before.each((ctx) => {
  ctx.env = {};
});
sqlite.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
});
sqlite('a relayed message refused for membership shows in the listing, warnings, doctor, metrics and log with its id', async (ctx) => {
  await pair(ctx);
  await refusedShowsEverywhere(ctx);
});
sqlite.run();

const postgres = suite<Ctx>('refused relays on postgres');
postgres.before.each(async (ctx) => {
  ctx.pg = await freshSchema();
  ctx.env = { SVC_TEST_STORE_URL: ctx.pg.url };
  // editConfigFile validates the edited config against this process's environment.
  process.env.SVC_TEST_STORE_URL = ctx.pg.url;
});
postgres.after.each(async (ctx) => {
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
  await ctx.pg?.drop();
});
postgres('a relayed message refused for membership shows in the listing, warnings, doctor, metrics and log with its id', async (ctx) => {
  // Two networks in two schemas of one database.
  const other = await freshSchema();
  try {
    await pair(ctx, (name) => pgStore(name === 'a' ? ctx.pg! : other));
    await refusedShowsEverywhere(ctx);
  } finally {
    await Promise.all([ctx.a?.dispose(), ctx.b?.dispose()]);
    await other.drop();
  }
});
postgres.run();
