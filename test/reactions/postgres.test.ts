// Reactions on Postgres with two `svc serve` instances on one schema (one network): a reaction made
// through one is in the other's history and on its SSE stream and attachments, the 20-key limit
// holds for concurrent reactions spread over both, and reactions outlive a kill -9 of both and
// are there, all 20, after their restart.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SseClient, attachAs } from '../helpers/live.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgServers } from '../helpers/pg-server.js';
import { roomMessage, TOKENS, type Json, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const path = (id: string, emoji: string) => `/v1/messages/${encodeURIComponent(id)}/reactions/${encodeURIComponent(emoji)}`;

interface Ctx {
  pgs: PgSchema;
  a: TestServer;
  b: TestServer;
}

const t = suite<Ctx>('reactions on Postgres across two instances');

t.before.each(async (ctx) => {
  ctx.pgs = await freshSchema();
  [ctx.a, ctx.b] = (await startPgServers(2, ctx.pgs, { rooms: [{ id: 'general', members: ['alpha', 'beta'] }] })) as [
    TestServer,
    TestServer,
  ];
});
t.after.each(async ({ pgs, a, b }) => {
  await Promise.all([a?.dispose(), b?.dispose()]);
  await pgs?.drop();
});

async function send(s: TestServer, text: string): Promise<string> {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', text), ALPHA);
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

t('a reaction through one instance shows in the other’s history, SSE and attachment', async ({ a, b }) => {
  const sse = await SseClient.open(b, { token: TOKENS.observer.value });
  const { c } = await attachAs(b, { network_id: 'testnet', agent: { id: 'alpha' } }, { token: ALPHA });
  try {
    const id = await send(a, 'across instances');
    const r = await a.req('PUT', path(id, '👍'), { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } });
    assert.is(r.status, 200, r.text);
    const f = await sse.nextOf('reaction.updated', 10_000);
    assert.is(f.json.reaction.message_id, id);
    assert.is(f.json.reaction.by, 'testnet:beta');
    const ev = await c.next((x: Json) => x.op === 'EVENT' && x.event?.type === 'reaction.updated', 10_000);
    assert.is(ev.event.reaction.emoji, '👍');
    const h = await b.get('/v1/rooms/general/messages?limit=1', ADMIN);
    assert.equal(h.body.messages[0].reactions, [{ emoji: '👍', count: 1, by: ['testnet:beta'] }]);
    // The other instance sees it as stored: a repeat there changes nothing.
    const again = await b.req('PUT', path(id, '👍'), { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } });
    assert.is(again.body.changed, false);
  } finally {
    sse.close();
    await c.close();
  }
});

t('concurrent new keys over both instances stop at 20, and reactions outlive a kill -9 and restart of both', async ({ a, b }) => {
  const id = await send(a, 'many keys');
  const answers = await Promise.all(
    Array.from({ length: 26 }, (_, i) =>
      (i % 2 ? a : b).req('PUT', path(id, `:k${i}:`), { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } }),
    ),
  );
  const statuses = answers.map((r) => r.status);
  assert.is(statuses.filter((s) => s === 200).length, 20, JSON.stringify(statuses));
  assert.is(statuses.filter((s) => s === 409).length, 6, JSON.stringify(statuses));
  const accepted = answers.flatMap((r, i) => (r.status === 200 ? [`:k${i}:`] : [])).sort();
  // Both instances die at once, so no process keeps a copy; what comes back is what was stored.
  await Promise.all([a.kill9(), b.kill9()]);
  await a.restart();
  await b.restart();
  for (const s of [a, b]) {
    const r = await s.get(`/v1/messages/${id}/reactions`, ADMIN);
    assert.is(r.status, 200, r.text);
    assert.equal(r.body.reactions.map((x: Json) => x.emoji).sort(), accepted);
    for (const x of r.body.reactions) assert.equal(x.by, ['testnet:beta']);
  }
  const h = await a.get('/v1/rooms/general/messages?limit=1', ADMIN);
  assert.is(h.body.messages[0].reactions.length, 20);
});

t.run();
