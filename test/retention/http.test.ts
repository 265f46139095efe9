// Retention end to end (#40 part 4) on each store backend, the app in this process with the purge
// running every 200 ms: a room's own max_messages, the network's max_age for the rest (threads and
// DMs too), a room's retention declared through POST /v1/apply and shown by GET /v1/rooms/{id}, and
// the purge counted in /metrics. What a purge removes in the store is test/store/message-purge.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { metricValue } from '../helpers/live.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';

const ADMIN = TOKENS.admin.value;
const BACKENDS = (process.env.SVC_RETENTION_BACKENDS ?? 'memory,sqlite,postgres').split(',');

interface Ctx {
  s: AppServer;
  pgs?: PgSchema;
}

for (const backend of BACKENDS) {
  const test = suite<Ctx>(`retention (${backend})`);

  test.before(async (ctx) => {
    ctx.pgs = backend === 'postgres' ? await freshSchema() : undefined;
    ctx.s = await startApp({
      env: { SVC_RETENTION_INTERVAL_MS: '200' },
      config: {
        store: backend === 'postgres' ? { backend, url: ctx.pgs!.url, schema: ctx.pgs!.schema } : { backend },
        server: { retention: { max_age: '2s' } },
        rooms: [
          { id: 'short', members: ['alpha'], retention: { max_messages: 3, max_age: '30d' } },
          { id: 'aged', members: ['alpha'] },
          { id: 'kept', members: ['alpha'], retention: { max_age: '30d' } },
        ],
      },
    });
  });
  test.after(async (ctx) => {
    await ctx.s.dispose();
    await ctx.pgs?.drop();
  });

  const send = async (s: AppServer, room: string, text: string, thread?: string) => {
    const body: Json = roomMessage(room, 'alpha', text);
    if (thread) body.target = { kind: 'thread', room_id: room, thread_id: thread };
    const r = await s.post('/v1/messages', body, TOKENS.alphaOnly.value);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  const texts = async (s: AppServer, path: string) =>
    ((await s.get(path, ADMIN)).body.messages as Json[]).map((m) => m.parts[0].text as string);
  /** Waits until the history at `path` holds exactly `expected`. */
  const holds = (s: AppServer, path: string, expected: string[], ms: number) =>
    eventually(
      async () => {
        assert.equal(await texts(s, path), expected);
        return true;
      },
      ms,
      path,
    );

  test("a room's max_messages keeps its newest; the network's max_age takes the rest, threads too", async ({ s }) => {
    for (const n of [1, 2, 3, 4, 5]) await send(s, 'short', `short ${n}`);
    await send(s, 'aged', 'aged 1');
    await send(s, 'aged', 'aged reply', 'th-aged');
    await send(s, 'kept', 'kept 1');
    await holds(s, '/v1/rooms/short/messages', ['short 3', 'short 4', 'short 5'], 10_000);
    await holds(s, '/v1/rooms/aged/messages', [], 15_000);
    await holds(s, '/v1/threads/th-aged/messages', [], 15_000);
    // The room's own 30d wins over the network's 2s.
    assert.equal(await texts(s, '/v1/rooms/kept/messages'), ['kept 1']);
    // A purge is counted once durable, a moment after readers stop seeing its messages.
    const atLeast = (metric: string, n: number) =>
      eventually(async () => ((await metricValue(s, ADMIN, metric)) ?? 0) >= n, 5000, `${metric} >= ${n}`);
    await atLeast('svc_retention_purged_messages_total{kind="room"}', 3);
    await atLeast('svc_retention_purged_messages_total{kind="thread"}', 1);
    // Every purge write is timed: at least one for the room, one for the thread.
    await atLeast('svc_retention_write_seconds_count', 2);
  });

  test('a purge reads what expired in one turn of the event loop and writes it in a later one', async ({ s }) => {
    // On sqlite both are synchronous: in one turn, with the requests that came meanwhile, they
    // made one long stall. The store's own methods run; each read that found something schedules
    // a macrotask, and each purge write records whether it has run.
    const store = s.app.ctx.store;
    const { expiredMessages, write } = store;
    let between = true;
    const seen: boolean[] = [];
    store.expiredMessages = async (q) => {
      const ids = await expiredMessages.call(store, q);
      if (ids.length > 0) {
        between = false;
        setImmediate(() => (between = true));
      }
      return ids;
    };
    store.write = (ops) => {
      if (ops.some((o) => o.op === 'message.purge')) seen.push(between);
      return write.call(store, ops);
    };
    try {
      for (const n of [6, 7, 8, 9]) await send(s, 'short', `short ${n}`);
      await holds(s, '/v1/rooms/short/messages', ['short 7', 'short 8', 'short 9'], 10_000);
      assert.ok(seen.length > 0, 'no purge write was seen');
      assert.equal(
        seen,
        seen.map(() => true),
      );
    } finally {
      store.expiredMessages = expiredMessages;
      store.write = write;
    }
  });

  test("GET /v1/rooms/{id} shows a room's retention; svc apply sets and clears it", async ({ s }) => {
    assert.equal((await s.get('/v1/rooms/short', ADMIN)).body.retention, { max_messages: 3, max_age: '30d' });
    assert.is((await s.get('/v1/rooms/aged', ADMIN)).body.retention, undefined);
    const apply = (retention: Json) =>
      s.post('/v1/apply', { network_id: 'testnet', agents: [], rooms: [{ id: 'applied', members: ['alpha'], retention }] }, ADMIN);
    let r = await apply({ max_age: '12h', max_messages: 1000 });
    assert.is(r.status, 200, r.text);
    assert.equal((await s.get('/v1/rooms/applied', ADMIN)).body.retention, { max_age: '12h', max_messages: 1000 });
    r = await apply({});
    assert.is(r.status, 200, r.text);
    assert.is((await s.get('/v1/rooms/applied', ADMIN)).body.retention, undefined);
    const bad = await apply({ max_age: '2 weeks' });
    assert.is(bad.status, 400, bad.text);
    assert.match(bad.body.error, /retention\.max_age/);
  });

  test.run();
}
