// The outbound A2A gateway on Postgres with two instances on one schema, both running it: a
// mention sent through either instance is sent to the remote agent once and answered once (the
// per-wake claim in the shared store), and a mention stored while neither ran the gateway (through
// a third instance without `a2a_agents`) is answered once one runs again (the shared cursor).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from './outbound-agent.js';

const admin = TOKENS.admin.value;
const alpha = TOKENS.alphaOnly.value;
const rooms = [{ id: 'lab', members: ['alpha'] }];

interface Ctx {
  pgs: PgSchema;
  agent: TestAgent;
  a: AppServer;
  b: AppServer;
}

const t = suite<Ctx>('the outbound A2A gateway on Postgres, two instances');

t.before(async (ctx) => {
  ctx.pgs = await freshSchema();
  ctx.agent = await startTestAgent();
  const config = {
    rooms,
    a2a_agents: [{ id: 'echo', card_url: ctx.agent.cardUrl, rooms: ['lab'], timeout_ms: 5000, allow_private_network: true }],
  };
  ctx.a = await startPgApp(ctx.pgs, config);
  ctx.b = await startPgApp(ctx.pgs, config);
});
t.after(async ({ a, b, agent, pgs }) => {
  await a?.dispose();
  await b?.dispose();
  await agent?.close();
  await pgs?.drop();
});

const send = async (s: AppServer, text: string) => {
  const r = await s.post('/v1/messages', roomMessage('lab', 'alpha', text), alpha);
  assert.is(r.status, 200, r.text);
  texts.set(r.body.message_id, text);
  return r.body.message_id as string;
};
const texts = new Map<string, string>();
/** echo's replies to message `id` (its text echoed back): one expected. */
const repliesTo = async (s: AppServer, id: string): Promise<Json[]> => {
  const r = await s.get('/v1/rooms/lab/messages', admin);
  assert.is(r.status, 200, r.text);
  const all = r.body.messages as Json[];
  const i = all.findIndex((m) => m.id === id);
  return i < 0 ? [] : all.slice(i + 1).filter((m) => m.from.id === 'echo' && m.parts[0]?.text === `echo: ${texts.get(id)}`);
};
const answered = (s: AppServer, id: string) =>
  eventually(async () => ((await repliesTo(s, id)).length > 0 ? true : undefined), 15_000, `echo's reply to ${id}`);

t(
  'a mention through either instance is sent once and answered once; one stored while neither ran the gateway is answered later',
  async ({ a, b, agent, pgs }) => {
    await eventually(async () => (await a.get('/v1/agents/echo', admin)).body.rooms?.includes('lab'), 10_000, 'echo in lab');
    const onA = await send(a, '@echo through A');
    await answered(b, onA);
    const onB = await send(b, '@echo through B');
    await answered(a, onB);
    // Both instances have read past both wakes once a later mention is answered by each reading.
    const last = await send(a, '@echo once more');
    await answered(a, last);
    for (const id of [onA, onB, last]) {
      assert.is(agent.received.filter((m) => m.messageId === id).length, 1, `${id} sent once`);
      assert.is((await repliesTo(a, id)).length, 1, `${id} answered once`);
    }

    await a.stop();
    await b.stop();
    const other = await startPgApp(pgs, { rooms });
    let stored: string;
    try {
      stored = await send(other, '@echo while no gateway ran');
    } finally {
      await other.dispose();
    }
    await a.restart();
    await b.restart();
    await answered(a, stored);
    const later = await send(b, '@echo after the restarts');
    await answered(a, later);
    for (const id of [onA, onB, last, stored, later]) {
      assert.is(agent.received.filter((m) => m.messageId === id).length, 1, `${id} sent once`);
      assert.is((await repliesTo(a, id)).length, 1, `${id} answered once`);
    }
  },
);

t.run();
