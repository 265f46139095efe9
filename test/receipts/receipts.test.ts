// Receipts end to end (docs/receipts.md): an attachment's ACK makes a message delivered, a read of
// the history makes it read, a runtime that never ACKs stays undelivered, receipts are durable and
// shared across Postgres instances, and nobody who may not read a message sees its receipts. Both
// suites run the app in the test process; the Postgres one runs two instances of it on one schema.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';
import { attachAs, SseClient, type AttachClient } from '../helpers/live.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';

const NET = 'testnet';
const ADMIN: string = TOKENS.admin.value;
const CONFIG = {
  auth: { mode: 'open', agent_registration: 'open' },
  rooms: [
    { id: 'general', members: [] },
    { id: 'secret', members: [], visibility: 'private' },
    { id: 'later', members: [] },
  ],
};
/** The rooms each agent joins once it claimed its id (a declared member's id is reserved for the operator's credentials). */
const ROOMS: Record<string, string[]> = { ann: ['general', 'secret'], bob: ['general', 'later'] };

const send = async (s: HttpServer, room: string, text: string): Promise<string> => {
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: room }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text }] },
    ADMIN,
  );
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
};

/** Attaches an agent, first claiming it anonymously (open registration) into its rooms when no token is given. */
const attach = async (s: HttpServer, id: string, token?: string): Promise<{ c: AttachClient; token: string }> => {
  const own = token ?? ((await claimThenJoin(s, id, ROOMS[id] ?? [])).body.agent_token as string);
  const { c } = await attachAs(s, { network_id: NET, agent: { id } }, { token: own });
  return { c, token: own };
};

const receipts = async (s: HttpServer, id: string, token = ADMIN): Promise<Json[]> => {
  const r = await s.get(`/v1/messages/${id}/receipts`, token);
  assert.is(r.status, 200, r.text);
  return r.body.receipts;
};
const stateOf = (list: Json[], agent: string) => list.find((x) => x.reader.type === 'agent' && x.reader.id === agent)?.state;
const waitState = (s: HttpServer, id: string, agent: string, state: string) =>
  eventually(async () => stateOf(await receipts(s, id), agent) === state, 5000, `${agent} ${state}`);

// ---------------------------------------------------------------------------------------------

const sqlite = suite<{ s: AppServer; alpha: string; beta: string }>('receipts on sqlite');
sqlite.before(async (ctx) => {
  ctx.s = await startApp({ config: CONFIG });
});
sqlite.after(async ({ s }) => s.dispose());

sqlite('an attached agent that ACKs is delivered, and read once it reads; one that never ACKs stays undelivered', async (ctx) => {
  const { s } = ctx;
  const a = await attach(s, 'ann');
  const b = await attach(s, 'bob');
  ctx.alpha = a.token;
  ctx.beta = b.token;
  const sse = await SseClient.open(s, { token: ADMIN, query: 'type=message.receipts' });
  const id = await send(s, 'general', 'hello');
  const fa = await a.c.message('hello');
  await b.c.message('hello');
  assert.equal(
    (await receipts(s, id)).map((x: Json) => [x.reader.id, x.state]),
    [
      ['ann', 'pending'],
      ['bob', 'pending'],
    ],
  );
  a.c.ack(fa.cursor);
  await waitState(s, id, 'ann', 'delivered');
  const ev = await sse.next((f) => f.event === 'message.receipts', 5000);
  assert.equal(ev.json.receipts.target, { kind: 'room', room_id: 'general' });
  assert.equal(ev.json.receipts.marks[0].reader, { type: 'agent', id: 'ann' });
  assert.is(ev.json.receipts.marks[0].kind, 'delivered');
  assert.is(stateOf(await receipts(s, id), 'bob'), 'pending');

  const h = await s.get('/v1/rooms/general/messages', a.token);
  assert.is(h.status, 200);
  await waitState(s, id, 'ann', 'read');
  const mine = (await receipts(s, id)).find((x: Json) => x.reader.id === 'ann');
  assert.ok(mine.delivered_at && mine.read_at);
  // beta was sent the event but its runtime never acknowledged it.
  await new Promise((r) => setTimeout(r, 400));
  assert.is(stateOf(await receipts(s, id), 'bob'), 'pending');
  sse.close();
  await a.c.close();
  await b.c.close();
});

sqlite(
  'a stream resuming from before two receipts events of a conversation replays the newest only, as the log keeps it',
  async ({ s, alpha }) => {
    const all = await SseClient.open(s, { token: ADMIN });
    const a = await attach(s, 'ann', alpha);
    const receiptsOf = async (text: string) => {
      await send(s, 'general', text);
      const created = await all.next((f) => f.event === 'message.created' && f.json.message.parts[0].text === text);
      a.c.ack((await a.c.message(text)).cursor);
      const r = await all.next((f) => f.event === 'message.receipts' && f.json.receipts.target.room_id === 'general');
      return { created: created.id, receipts: r.id };
    };
    const first = await receiptsOf('first of two');
    const second = await receiptsOf('second of two');
    // From the replay buffer: the first notice's text is gone, its place kept.
    const resumed = await SseClient.open(s, { token: ADMIN, lastEventId: first.created, query: 'type=message.receipts' });
    const got = await resumed.next((f) => f.event === 'message.receipts');
    assert.is(got.id, second.receipts, 'the newest notice, not the one it replaced');
    const after = await SseClient.open(s, { token: ADMIN, lastEventId: first.receipts, query: 'type=message.receipts' });
    assert.is((await after.next((f) => f.event === 'message.receipts')).id, second.receipts, 'resumed right after the replaced one');
    for (const c of [all, resumed, after]) c.close();
    await a.c.close();
  },
);

sqlite('a read with an operator token counts only for whom it names, and a message can be marked read alone', async ({ s, beta }) => {
  const id = await send(s, 'general', 'one more');
  const id2 = await send(s, 'general', 'and the last');
  assert.is((await s.get('/v1/rooms/general/messages')).status, 200);
  assert.is((await s.get('/v1/rooms/general/messages', ADMIN)).status, 200);
  await new Promise((r) => setTimeout(r, 400));
  assert.is(stateOf(await receipts(s, id), 'bob'), 'pending');
  const refused = await s.req('POST', `/v1/messages/${id}/read`, { token: ADMIN });
  assert.is(refused.status, 403);
  const marked = await s.req('POST', `/v1/messages/${id}/read?as=bob`, { token: ADMIN });
  assert.is(marked.status, 200, marked.text);
  assert.equal(marked.body.reader, { type: 'agent', id: 'bob' });
  await waitState(s, id, 'bob', 'read');
  assert.is(stateOf(await receipts(s, id2), 'bob'), 'pending');
  const own = await s.req('POST', `/v1/messages/${id2}/read`, { token: beta });
  assert.is(own.status, 200);
  await waitState(s, id2, 'bob', 'read');
});

sqlite(
  'no receipt is shown to a caller who may not read the message, nor to a reader who is not its sender',
  async ({ s, alpha, beta }) => {
    const hidden = await send(s, 'secret', 'classified');
    const open = await send(s, 'general', 'public enough');
    assert.is((await s.get(`/v1/messages/${hidden}/receipts`, beta)).status, 404);
    // Anonymously too, a hidden message answers as a missing one (test/network/message-visibility.test.ts).
    assert.is((await s.get(`/v1/messages/${hidden}/receipts`)).status, 404);
    assert.is((await s.req('POST', `/v1/messages/${hidden}/read`, { token: beta })).status, 404);
    assert.is((await s.get(`/v1/messages/${open}/receipts`, alpha)).status, 403);
    assert.is((await s.get('/v1/messages/msg_nope/receipts', ADMIN)).status, 404);
    // The sender sees its own message's receipts.
    const r = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'ann' }, parts: [{ kind: 'text', text: 'mine' }] },
      alpha,
    );
    assert.is(r.status, 200, r.text);
    assert.is((await s.get(`/v1/messages/${r.body.message_id}/receipts`, alpha)).status, 200);
    assert.is((await s.get(`/v1/messages/${r.body.message_id}/receipts`, beta)).status, 403);
    assert.equal(
      (await receipts(s, r.body.message_id, alpha)).map((x: Json) => x.reader.id),
      ['bob'],
    );
  },
);

sqlite("an agent's own event stream counts as delivery of the live messages it is written; an operator's does not", async ({ s, beta }) => {
  const mine = await SseClient.open(s, { token: beta });
  const ops = await SseClient.open(s, { token: ADMIN });
  const id = await send(s, 'general', 'streamed');
  await mine.message('streamed');
  await ops.message('streamed');
  await waitState(s, id, 'bob', 'delivered');
  assert.is(stateOf(await receipts(s, id), 'ann'), 'pending');
  mine.close();
  ops.close();
});

sqlite('an agent added to a room while attached is delivered only what came after it joined', async ({ s, alpha }) => {
  const { c } = await attachAs(s, { network_id: NET, agent: { id: 'ann' } }, { token: alpha });
  const before = await send(s, 'later', 'before ann joined');
  const added = await s.req('PATCH', '/v1/rooms/later/members', { token: ADMIN, body: { add: ['ann'] } });
  assert.is(added.status, 200, added.text);
  const after = await send(s, 'later', 'after ann joined');
  c.ack((await c.message('after ann joined')).cursor);
  await waitState(s, after, 'ann', 'delivered');
  assert.is(stateOf(await receipts(s, before), 'ann'), 'pending');
  await c.close();
});

sqlite('a message.receipts event reaches only streams that may see its conversation', async ({ s, alpha, beta }) => {
  const ops = await SseClient.open(s, { token: ADMIN, query: 'type=message.receipts' });
  const outsider = await SseClient.open(s, { token: beta, query: 'type=message.receipts' });
  await send(s, 'secret', 'for ann only');
  assert.is((await s.get('/v1/rooms/secret/messages', alpha)).status, 200);
  await ops.next((f) => f.json?.receipts?.target?.room_id === 'secret', 5000);
  await new Promise((r) => setTimeout(r, 300));
  assert.not.ok(outsider.frames.items.some((f) => f.json?.receipts?.target?.room_id === 'secret'));
  ops.close();
  outsider.close();
});

sqlite('a message read before its ACK shows delivered_at no later than read_at', async ({ s, beta }) => {
  const { c } = await attachAs(s, { network_id: NET, agent: { id: 'bob' } }, { token: beta });
  const id = await send(s, 'later', 'read first, acknowledged after');
  const frame = await c.message('read first, acknowledged after');
  assert.is((await s.req('POST', `/v1/messages/${id}/read`, { token: beta })).status, 200);
  await waitState(s, id, 'bob', 'read');
  const marks = await SseClient.open(s, { token: ADMIN, query: 'type=message.receipts' });
  // The ACK comes later than the read (its batch is written after this pause).
  await new Promise((r) => setTimeout(r, 50));
  c.ack(frame.cursor);
  await marks.next(
    (f) => f.json?.receipts?.marks?.some((m: Json) => m.kind === 'delivered' && m.reader.id === 'bob' && m.up_to_seq !== undefined),
    5000,
  );
  const mine = (await receipts(s, id)).find((x: Json) => x.reader.id === 'bob');
  assert.is(mine.state, 'read');
  assert.ok(mine.delivered_at <= mine.read_at, `delivered_at ${mine.delivered_at} is after read_at ${mine.read_at}`);
  marks.close();
  await c.close();
});

sqlite('receipts survive a restart', async ({ s, alpha }) => {
  const id = await send(s, 'general', 'before the restart');
  assert.is((await s.get('/v1/rooms/general/messages', alpha)).status, 200);
  await waitState(s, id, 'ann', 'read');
  await s.restart();
  assert.is(stateOf(await receipts(s, id), 'ann'), 'read');
  assert.is(stateOf(await receipts(s, id), 'bob'), 'pending');
});

sqlite.run();

// ---------------------------------------------------------------------------------------------

const pg = suite<{ schema: PgSchema; a: AppServer; b: AppServer }>('receipts on Postgres');
pg.before(async (ctx) => {
  ctx.schema = await freshSchema();
  ctx.a = await startPgApp(ctx.schema, CONFIG);
  ctx.b = await startPgApp(ctx.schema, CONFIG);
  // bob is addressed and never attaches here: the operator names it a member of general.
  const added = await ctx.a.req('PATCH', '/v1/rooms/general/members', { token: ADMIN, body: { add: ['bob'] } });
  assert.is(added.status, 200, added.text);
});
pg.after(async ({ schema, a, b }) => {
  await a.dispose();
  await b.dispose();
  await schema.drop();
});

pg('an ACK on one instance is seen on the other, and survives a restart of both', async ({ a, b }) => {
  const alpha = await attach(a, 'ann');
  const id = await send(b, 'general', 'across');
  const f = await alpha.c.message('across');
  alpha.c.ack(f.cursor);
  await waitState(b, id, 'ann', 'delivered');
  assert.is((await b.get('/v1/rooms/general/messages', alpha.token)).status, 200);
  await waitState(a, id, 'ann', 'read');
  await alpha.c.close();
  await a.restart();
  await b.restart();
  assert.is(stateOf(await receipts(a, id), 'ann'), 'read');
  assert.is(stateOf(await receipts(b, id), 'bob'), 'pending');
});

pg.run();
