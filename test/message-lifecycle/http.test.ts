// Edits and deletes over HTTP (#40 parts 1 and 2) against a real server on each store backend:
// who may edit and delete, the edited message in history, versions and search, tombstones in place,
// message.edited and message.deleted on SSE and over an attachment, and an edit's new mention waking
// its agent exactly once. The app runs in the test process.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SseClient, attachAs } from '../helpers/live.js';
import { roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const NET = 'testnet';
const BACKENDS = (process.env.SVC_LIFECYCLE_BACKENDS ?? 'memory,sqlite,postgres').split(',');
const text = (t: string) => [{ kind: 'text', text: t }];
const tokenOf = (id: string): string => (id === 'alpha' ? ALPHA : ADMIN);

interface Ctx {
  s: AppServer;
  pgs?: PgSchema;
}

for (const backend of BACKENDS) {
  const test = suite<Ctx>(`message edits and deletes over HTTP (${backend})`);

  test.before(async (ctx) => {
    ctx.pgs = backend === 'postgres' ? await freshSchema() : undefined;
    const store =
      backend === 'postgres' ? { backend, url: ctx.pgs!.url, schema: ctx.pgs!.schema } : backend === 'memory' ? { backend } : { backend };
    ctx.s = await startApp({
      config: {
        store,
        rooms: [
          { id: 'general', members: ['alpha', 'beta', 'gamma'] },
          { id: 'closed', members: ['beta'], visibility: 'private' },
        ],
      },
    });
    for (const id of ['beta', 'gamma']) {
      const r = await ctx.s.post('/v1/agents/register', { requested_agent_id: id }, ADMIN);
      assert.is(r.status, 200, r.text);
    }
  });
  test.after(async (ctx) => {
    await ctx.s.dispose();
    await ctx.pgs?.drop();
  });

  async function send(s: AppServer, body: Json): Promise<string> {
    const r = await s.post('/v1/messages', body, tokenOf(body.from.id));
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  }

  const patch = (s: AppServer, id: string, body: Json, token: string) => s.req('PATCH', `/v1/messages/${id}`, { token, body });
  const remove = (s: AppServer, id: string, token: string, from?: string) =>
    s.req('DELETE', `/v1/messages/${id}`, { token, ...(from ? { body: { from: { type: 'agent', id: from } } } : {}) });

  test('the sender edits: history shows the new parts, versions keep the old, search finds only the new', async ({ s }) => {
    const id = await send(s, roomMessage('general', 'alpha', 'the answer is fourty-one'));
    const r = await patch(s, id, { parts: text('the answer is fortytwo') }, ALPHA);
    assert.is(r.status, 200, r.text);
    assert.equal([r.body.id, r.body.version, r.body.parts], [id, 2, text('the answer is fortytwo')]);
    assert.ok(r.body.edited_at >= r.body.created_at);
    const h = await s.get('/v1/rooms/general/messages?limit=100', ADMIN);
    const shown = h.body.messages.find((m: Json) => m.id === id);
    assert.equal([shown.version, shown.parts[0].text], [2, 'the answer is fortytwo']);
    const v = await s.get(`/v1/messages/${id}/versions`, ADMIN);
    assert.is(v.status, 200, v.text);
    assert.equal(
      { ...v.body, items: v.body.items.map((x: Json) => [x.version, x.parts[0].text]) },
      { message_id: id, version: 2, items: [[1, 'the answer is fourty-one']] },
    );
    const found = await s.get('/v1/search?q=fortytwo', ADMIN);
    assert.is(found.status, 200, found.text);
    assert.ok(
      found.body.messages.some((x: Json) => (x.message ?? x).id === id),
      found.text,
    );
    const old = await s.get('/v1/search?q=fourty', ADMIN);
    assert.not.ok(
      old.body.messages.some((x: Json) => (x.message ?? x).id === id),
      old.text,
    );
  });

  test('only the sender or an admin edits; a reader who cannot see the message gets 404', async ({ s }) => {
    const id = await send(s, roomMessage('general', 'beta', 'beta wrote this'));
    const asAlpha = await patch(s, id, { parts: text('alpha rewrote it'), from: { type: 'agent', id: 'alpha' } }, ALPHA);
    assert.is(asAlpha.status, 403, asAlpha.text);
    // A write token may not speak as beta (registered to another credential), as on a send.
    const writer = await patch(s, id, { parts: text('edited by a writer as beta') }, TOKENS.writer.value);
    assert.is(writer.status, 403, writer.text);
    const pair = await patch(s, id, { parts: text('a pairing is no sender here') }, TOKENS.pair.value);
    assert.is(pair.status, 403, pair.text);
    const admin = await patch(s, id, { parts: text('an operator fixed it') }, TOKENS.adminOnly.value);
    assert.is(admin.status, 200, admin.text);
    const closed = await send(s, roomMessage('closed', 'beta', 'members only'));
    const hidden = await patch(s, closed, { parts: text('x'), from: { type: 'agent', id: 'alpha' } }, ALPHA);
    assert.is(hidden.status, 404, hidden.text);
    const missing = await patch(s, 'msg_nope', { parts: text('x') }, ADMIN);
    assert.is(missing.status, 404, missing.text);
    const empty = await patch(s, id, { parts: [] }, ADMIN);
    assert.is(empty.status, 400, empty.text);
    assert.match(empty.body.error, /body\.parts/);
    const stale = await patch(s, id, { parts: text('late'), expect_version: 1 }, ADMIN);
    assert.is(stale.status, 409, stale.text);
  });

  test('message.edited and message.deleted reach SSE and an attached member; a new mention wakes once', async ({ s }) => {
    const sse = await SseClient.open(s, { token: TOKENS.observer.value });
    const { c } = await attachAs(s, { network_id: NET, agent: { id: 'alpha' } }, { token: ALPHA });
    try {
      const id = await send(s, roomMessage('general', 'beta', 'status report'));
      const first = await c.next((x: Json) => x.op === 'EVENT' && x.event?.message?.id === id);
      if (first.cursor !== undefined) c.ack(first.cursor);
      // The edit mentions alpha: alpha is woken by it (a targeted EVENT, and agent.wake.delivered).
      assert.is((await patch(s, id, { parts: text('status report for @alpha'), from: { type: 'agent', id: 'beta' } }, ADMIN)).status, 200);
      const edited = await sse.nextOf('message.edited');
      assert.equal([edited.json.message.id, edited.json.mentions_added], [id, [`svc://${NET}/agents/alpha`]]);
      const ev = await c.next((x: Json) => x.op === 'EVENT' && x.event?.type === 'message.edited');
      assert.is(ev.event.message.parts[0].text, 'status report for @alpha');
      if (ev.cursor !== undefined) c.ack(ev.cursor);
      await sse.next((x) => x.event === 'agent.wake.delivered' && x.json.agent.message_id === id);
      // Dropping the mention and bringing it back wakes nobody again.
      assert.is((await patch(s, id, { parts: text('status report'), from: { type: 'agent', id: 'beta' } }, ADMIN)).status, 200);
      assert.is((await patch(s, id, { parts: text('status report, @alpha'), from: { type: 'agent', id: 'beta' } }, ADMIN)).status, 200);
      const third = await sse.next((x) => x.event === 'message.edited' && x.json.message.version === 4);
      assert.equal(third.json.mentions_added, []);
      const later = await c.next((x: Json) => x.op === 'EVENT' && x.event?.message?.version === 4);
      if (later.cursor !== undefined) c.ack(later.cursor);
      assert.is((await remove(s, id, ADMIN, 'beta')).status, 200);
      const deleted = await sse.nextOf('message.deleted');
      assert.equal([deleted.json.message.id, deleted.json.message.parts, typeof deleted.json.message.deleted_at], [id, [], 'string']);
      const gone = await c.next((x: Json) => x.op === 'EVENT' && x.event?.type === 'message.deleted');
      if (gone.cursor !== undefined) c.ack(gone.cursor);
      const wakes = sse.all.filter((x) => x.event?.startsWith('agent.wake.') && x.json?.agent?.message_id === id);
      assert.is(wakes.length, 1, JSON.stringify(wakes));
    } finally {
      sse.close();
      await c.close();
    }
  });

  test('a delete leaves a tombstone in place: no parts, reactions or versions; counts follow; twice is the same', async ({ s }) => {
    const root = await send(s, {
      ...roomMessage('general', 'alpha', 'thread root'),
      target: { kind: 'thread', room_id: 'general', thread_id: 't-del' },
    });
    const reply = await send(s, {
      ...roomMessage('general', 'beta', 'a reply'),
      target: { kind: 'thread', room_id: 'general', thread_id: 't-del' },
    });
    assert.is((await patch(s, root, { parts: text('thread root, edited') }, ALPHA)).status, 200);
    assert.is(
      (await s.req('PUT', `/v1/messages/${root}/reactions/👍`, { token: ADMIN, body: { from: { type: 'agent', id: 'beta' } } })).status,
      200,
    );
    const other = await remove(s, root, ADMIN, 'beta');
    assert.is(other.status, 403, other.text);
    const r = await remove(s, root, ALPHA);
    assert.is(r.status, 200, r.text);
    assert.equal([r.body.id, r.body.parts, r.body.mentions, r.body.reactions], [root, [], [], undefined]);
    const again = await remove(s, root, ALPHA);
    assert.equal([again.status, again.body.deleted_at], [200, r.body.deleted_at]);
    const h = await s.get('/v1/threads/t-del/messages', ADMIN);
    assert.equal(
      h.body.messages.map((m: Json) => [m.id, m.parts.length, m.deleted_at === undefined]),
      [
        [root, 0, false],
        [reply, 1, true],
      ],
    );
    assert.is((await s.get('/v1/threads/t-del', ADMIN)).body.message_count, 1);
    const v = await s.get(`/v1/messages/${root}/versions`, ADMIN);
    assert.equal(v.body.items, []);
    const edit = await patch(s, root, { parts: text('back again') }, ALPHA);
    assert.is(edit.status, 409, edit.text);
  });

  test.run();
}
