// Retention on Postgres with two instances of the app (in the test process) on one schema (one
// network, #40 part 4): the purge runs on the instance holding the lease `retention` and only
// there, so every expired message is removed once, by one of them (its
// svc_retention_purged_messages_total holds them all, the other's none), while both take sends;
// both histories shrink to what the room keeps, and both event streams go on past the events the
// purge removed.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { metricValue, SseClient } from '../helpers/live.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import type { AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const KEEP = 5;
/** Over two of the purge's largest writes (PURGE_BATCH.max, 50) expire. */
const SENT = 240;

interface Ctx {
  pgs: PgSchema;
  a: AppServer;
  b: AppServer;
}

const t = suite<Ctx>('retention on Postgres across two instances');

t.before(async (ctx) => {
  ctx.pgs = await freshSchema();
  const config: Record<string, Json> = { rooms: [{ id: 'short', members: ['alpha'], retention: { max_messages: KEEP } }] };
  // Read when the first app of the file loads the retention modules.
  const env = { SVC_RETENTION_INTERVAL_MS: '200' };
  // One after the other: the first migrates.
  ctx.a = await startPgApp(ctx.pgs, config, { env });
  ctx.b = await startPgApp(ctx.pgs, config, { env });
});
t.after(async ({ pgs, a, b }) => {
  await Promise.all([a?.dispose(), b?.dispose()]);
  await pgs?.drop();
});

const purgedBy = async (s: AppServer) => (await metricValue(s, ADMIN, 'svc_retention_purged_messages_total{kind="room"}')) ?? 0;
const texts = async (s: AppServer) =>
  ((await s.get('/v1/rooms/short/messages?limit=100', ADMIN)).body.messages as Json[]).map((m) => m.parts[0].text as string);

t('one instance purges, each message once; both histories keep the newest and their streams go on', async ({ a, b }) => {
  const sseB = await SseClient.open(b, { token: TOKENS.observer.value });
  try {
    // Sends through both instances in turn (one at a time: the history's order is known) while the purge runs.
    for (let i = 0; i < SENT; i++) {
      const r = await [a, b][i % 2]!.post('/v1/messages', roomMessage('short', 'alpha', `m${i}`), TOKENS.alphaOnly.value);
      assert.is(r.status, 200, r.text);
    }
    const newest = Array.from({ length: KEEP }, (_, i) => `m${SENT - KEEP + i}`);
    for (const s of [a, b])
      await eventually(
        async () => {
          assert.equal(await texts(s), newest);
          return true;
        },
        20_000,
        `history on ${s.url}`,
      );
    const counts = [await purgedBy(a), await purgedBy(b)];
    assert.is(counts[0]! + counts[1]!, SENT - KEEP, `purged by each: ${counts}`);
    assert.ok(counts.includes(0), `both instances purged: ${counts}`);
    // After the purge, events still flow from one instance to the other.
    const r = await a.post('/v1/messages', roomMessage('short', 'alpha', 'after the purge'), TOKENS.alphaOnly.value);
    assert.is(r.status, 200, r.text);
    const f = await sseB.message('after the purge', 10_000);
    assert.is(f.json!.message.id, r.body.message_id);
    for (const s of [a, b]) assert.not.match(s.output(), /retention purge failed|Z error /);
  } finally {
    sseB.close();
  }
});

t.run();
