// /v1/mcp on two instances of the app, in the test process, sharing one Postgres schema: the wait
// cursor and read markers are in the store, so any instance answers any call. A wait on B returns
// a mention sent on A; two waits of one agent on A and B return each mention once between them; a
// read on A is read on B; a 2026-07-28 client listening on B hears of a mention sent on A.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connectMcpHttp, connectMcpHttp2026, nextResourceUpdate } from '../helpers/mcp-http.js';
import { TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import type { AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';

const ALPHA = TOKENS.alphaOnly.value;
const GENERAL = { kind: 'room', room_id: 'general' };
const CONFIG: Json = {
  auth: { agent_registration: 'open' },
  // beta joins general once claimed: a declared member's id is reserved for the operator's credentials.
  rooms: [{ id: 'general', name: 'General', members: ['alpha'] }],
};

interface Ctx {
  pgs: PgSchema;
  a: AppServer;
  b: AppServer;
  beta: string;
}

async function say(s: HttpServer, text: string): Promise<string> {
  const r = await s.req('POST', '/v1/messages', {
    token: ALPHA,
    body: { target: GENERAL, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text }] },
  });
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

const ids = (r: { structuredContent?: Json }): string[] => (r.structuredContent?.messages ?? []).map((m: Json) => m.id);

const two = suite<Ctx>('/v1/mcp on two instances of one Postgres schema');
two.before(async (ctx) => {
  ctx.pgs = await freshSchema();
  // One after the other: the first migrates.
  ctx.a = await startPgApp(ctx.pgs, CONFIG);
  ctx.b = await startPgApp(ctx.pgs, CONFIG);
  const reg = await claimThenJoin(ctx.a, 'beta', ['general']);
  ctx.beta = reg.body.agent_token;
});
two.after(async ({ pgs, a, b }) => {
  await Promise.all([a?.dispose(), b?.dispose()]);
  await pgs?.drop();
});

two('a wait on B returns a mention sent on A while it waits', async ({ a, b, beta }) => {
  const m = await connectMcpHttp(b.url, beta);
  try {
    await m.call('wait_for_messages', { timeout_s: 0 });
    const waiting = m.call('wait_for_messages', { timeout_s: 20 });
    await new Promise((r) => setTimeout(r, 400));
    const started = Date.now();
    const id = await say(a, 'over on A @beta');
    const r = await waiting;
    assert.equal(ids(r), [id], r.text);
    assert.ok(Date.now() - started < 5000, 'woken by the notification of the other instance');
  } finally {
    await m.close();
  }
});

two(
  'waits of one agent on A and on B return each mention exactly once between them, also across a restart of B',
  async ({ a, b, beta }) => {
    const onA = await connectMcpHttp(a.url, beta);
    const onB = await connectMcpHttp(b.url, beta);
    try {
      const sent: string[] = [];
      const got: string[] = [];
      for (let round = 0; round < 3; round++) {
        const waits = [onA.call('wait_for_messages', { timeout_s: 3 }), onB.call('wait_for_messages', { timeout_s: 3 })];
        await new Promise((r) => setTimeout(r, 300));
        sent.push(await say(round % 2 ? a : b, `round ${round} @beta`));
        for (const r of await Promise.all(waits)) got.push(...ids(r));
      }
      // Whatever is still waiting comes now, once.
      got.push(...ids(await onA.call('wait_for_messages', { timeout_s: 0.5 })));
      got.push(...ids(await onB.call('wait_for_messages', { timeout_s: 0.5 })));
      assert.equal([...got].sort(), [...sent].sort(), 'every mention once, none twice');
    } finally {
      await onA.close();
      await onB.close();
    }
    // B restarts; a mention sent on A meanwhile comes through B once, and nothing from before does.
    const stopped = b.stop();
    const during = await say(a, 'while B restarts @beta');
    await stopped;
    await b.restart();
    const again = await connectMcpHttp(b.url, beta);
    try {
      assert.equal(ids(await again.call('wait_for_messages', { timeout_s: 5 })), [during]);
      assert.equal(ids(await again.call('wait_for_messages', { timeout_s: 0.5 })), []);
    } finally {
      await again.close();
    }
  },
);

two('a conversation read through A is read through B', async ({ a, b, beta }) => {
  await say(a, 'room traffic to read');
  const onA = await connectMcpHttp(a.url, beta);
  const onB = await connectMcpHttp(b.url, beta);
  try {
    const unread = async () =>
      ((await onB.call('list_conversations')).structuredContent as Json).conversations.find(
        (c: Json) => c.conversation.room_id === 'general',
      ).unread as number;
    assert.ok((await unread()) >= 1);
    await onA.call('read_messages', { room_id: 'general' });
    assert.is(await unread(), 0);
  } finally {
    await onA.close();
    await onB.close();
  }
});

two('a 2026-07-28 client listening on B (subscriptions/listen) is told of a mention sent on A', async ({ a, b, beta }) => {
  const c = await connectMcpHttp2026(b.url, beta);
  try {
    const inbox = (await c.listResources()).resources.find((r) => r.name === 'inbox')!.uri;
    const updated = nextResourceUpdate(c);
    const sub = await c.listen({ resourceSubscriptions: [inbox] });
    await say(a, 'listen on B @beta');
    assert.is(await updated, inbox);
    await sub.close();
  } finally {
    await c.close();
  }
});

two.run();
