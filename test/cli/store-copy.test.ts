// Moving a laptop network to Postgres: `svc store copy` of a sqlite network with rooms, threads,
// DMs and agents, then `svc serve` from Postgres answers the same histories to the same tokens,
// agent tokens included; a second copy into the same schema is refused. And back: the Postgres
// network copied into a new sqlite file serves the same again.

import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { claimThenJoin } from '../helpers/claim.js';

const ADMIN = TOKENS.admin.value;

interface Ctx {
  pgs: PgSchema;
  s: TestServer;
}

const t = suite<Ctx>('svc store copy, then serving from Postgres');

t.before(async (ctx) => {
  ctx.pgs = await freshSchema();
});
t.after(async ({ pgs, s }) => {
  await s?.dispose();
  await pgs.drop();
});

const rooms = [
  { id: 'general', members: ['alpha'] },
  { id: 'hidden', visibility: 'private', members: [] },
];

async function reads(s: TestServer, token: string): Promise<Json> {
  const get = async (p: string) => {
    const r = await s.get(p, token);
    assert.is(r.status, 200, `${p}: ${r.text}`);
    return r.body;
  };
  return {
    rooms: await get('/v1/rooms'),
    general: await get('/v1/rooms/general/messages'),
    hidden: await get('/v1/rooms/hidden/messages'),
    threads: await get('/v1/rooms/general/threads'),
    thread: await get('/v1/threads/t1/messages'),
    agents: await get('/v1/agents'),
    dms: await get('/v1/dms'),
  };
}

t('a copied network serves the same histories to the same tokens, agent tokens included', async (ctx) => {
  const s = await startServer({ config: { auth: { agent_registration: 'open' }, rooms } });
  ctx.s = s;
  const reg = await claimThenJoin(s, 'gen', ['general', 'hidden'], 'Generated');
  const gen = reg.body.agent_token as string;
  const send = async (body: Json, token: string) => {
    const r = await s.post('/v1/messages', body, token);
    assert.is(r.status, 200, r.text);
  };
  const text = (t: string) => [{ kind: 'text', text: t }];
  await send({ target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'gen' }, parts: text('hello @alpha') }, gen);
  await send({ target: { kind: 'room', room_id: 'hidden' }, from: { type: 'agent', id: 'gen' }, parts: text('secret') }, gen);
  await send(
    { target: { kind: 'thread', room_id: 'general', thread_id: 't1' }, from: { type: 'human', id: 'op' }, parts: text('in a thread') },
    ADMIN,
  );
  await send(
    { target: { kind: 'thread', room_id: 'general', thread_id: 't1' }, from: { type: 'agent', id: 'gen' }, parts: text('reply') },
    gen,
  );
  await send(
    { target: { kind: 'dm', participant_ids: ['testnet:gen', 'testnet:alpha'] }, from: { type: 'agent', id: 'gen' }, parts: text('psst') },
    gen,
  );
  const before = await reads(s, ADMIN);
  const genBefore = await s.get('/v1/rooms/hidden/messages', gen);
  await s.stop();

  const env = { SVC_TEST_STORE_URL: ctx.pgs.url };
  const copy = await cli(['store', 'copy', '--config', s.configFile, '--to', ctx.pgs.url, '--schema', ctx.pgs.schema], { env });
  assert.is(copy.code, 0, copy.stderr);
  assert.match(
    copy.stdout,
    /^copied network testnet into postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres schema \S+: 2 rooms, 2 agents, 5 messages, 1 threads, 1 DMs, 0 artifacts, \d+ events \(last seq \d+\), 0 pairing cursors in [\d.]+ s\n$/,
  );

  const again = await cli(['store', 'copy', '--config', s.configFile, '--to', ctx.pgs.url, '--schema', ctx.pgs.schema], { env });
  assert.is(again.code, 1);
  assert.match(
    again.stderr,
    /the target schema already holds a network \(2 rooms, 2 agents, 5 messages, \d+ events\); copy only into an empty schema/,
  );

  // Serve the same folder from Postgres: only the store section changes.
  const pg = await startServer({ dir: s.dir, config: { auth: { agent_registration: 'open' }, rooms, store: pgStore(ctx.pgs) }, env });
  ctx.s = pg;
  assert.equal(await reads(pg, ADMIN), before);
  const genAfter = await pg.get('/v1/rooms/hidden/messages', gen);
  assert.is(genAfter.status, 200);
  assert.equal(genAfter.body, genBefore.body);
  // The agent token still sends as its agent; the thread keeps counting from the copy.
  const r = await pg.post(
    '/v1/messages',
    { target: { kind: 'thread', room_id: 'general', thread_id: 't1' }, from: { type: 'agent', id: 'gen' }, parts: text('after the move') },
    gen,
  );
  assert.is(r.status, 200, r.text);
  assert.is((await pg.get('/v1/threads/t1', ADMIN)).body.message_count, 3);
  const onPg = await reads(pg, ADMIN);
  const genOnPg = (await pg.get('/v1/rooms/hidden/messages', gen)).body;
  await pg.stop();

  // And back into a new sqlite file, served from a folder of its own.
  const back = join(s.dir, 'back');
  const file = join(back, '.svc', 'svc.db');
  const down = await cli(['store', 'copy', '--config', pg.configFile, '--to', file], { env });
  assert.is(down.code, 0, down.stderr);
  assert.match(
    down.stdout,
    /^copied network testnet into \S+\/back\/\.svc\/svc\.db: 2 rooms, 2 agents, 6 messages, 1 threads, 1 DMs, 0 artifacts, \d+ events \(last seq \d+\), 0 pairing cursors in [\d.]+ s\n$/,
  );
  const refused = await cli(['store', 'copy', '--config', pg.configFile, '--to', file], { env });
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /the target path already holds a network \(svc\.db in \S+\); copy only into a path where no store exists/);
  // The sqlite store's default path in the test config is .svc/svc.db; the folder is inside s.dir.
  const lite = await startServer({ dir: back, config: { auth: { agent_registration: 'open' }, rooms } });
  try {
    assert.equal(await reads(lite, ADMIN), onPg);
    const genLite = await lite.get('/v1/rooms/hidden/messages', gen);
    assert.is(genLite.status, 200);
    assert.equal(genLite.body, genOnPg);
  } finally {
    await lite.stop();
  }
});

t('a target that is not a postgres URL is a usage error that does not echo a password', async () => {
  const r = await cli(['store', 'copy', '--to', 'mysql://u:hunter2@h/db']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--to must be a postgres:\/\/ URL or a sqlite file path/);
  assert.not.match(r.stderr, /hunter2/);
  const schema = await cli(['store', 'copy', '--to', 'copy.db', '--schema', 'home']);
  assert.is(schema.code, 2);
  assert.match(schema.stderr, /--schema goes with a postgres:\/\/ URL/);
});

t.run();
