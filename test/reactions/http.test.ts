// Reactions over HTTP against a real server (sqlite): add, remove, idempotence, the distinct-emoji
// limit, refusals by the conversation's write rules, reactions in history and search, and the
// reaction.updated event on SSE and over an attachment (which wakes nobody). The app runs in the
// test process, but for the kill -9 test, which needs a `svc serve` process to kill.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SseClient, attachAs } from '../helpers/live.js';
import { eventually, roomMessage, startServer, TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';

const ADMIN = TOKENS.admin.value;
const NET = 'testnet';
const enc = encodeURIComponent;
const reactPath = (id: string, emoji: string) => `/v1/messages/${enc(id)}/reactions/${enc(emoji)}`;

interface Ctx {
  s: AppServer;
}

const test = suite<Ctx>('reactions over HTTP');

test.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      rooms: [{ id: 'general', members: ['alpha', 'beta'] }],
    },
  });
  // alpha belongs to the alpha-only token (its allowlist); beta and gamma to the admin token.
  for (const id of ['beta', 'gamma']) {
    const r = await ctx.s.post('/v1/agents/register', { requested_agent_id: id }, ADMIN);
    assert.is(r.status, 200, r.text);
  }
});
test.after(async (ctx) => {
  await ctx.s.dispose();
});

const ALPHA = TOKENS.alphaOnly.value;
/** The token that may act as `id`. */
const tokenOf = (id: string): string => (id === 'alpha' ? ALPHA : ADMIN);

async function send(s: HttpServer, body: Json): Promise<string> {
  const r = await s.post('/v1/messages', body, tokenOf(body.from.id));
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

const put = (s: HttpServer, id: string, emoji: string, from: string, token: string = tokenOf(from), type = 'agent') =>
  s.req('PUT', reactPath(id, emoji), { token, body: { from: { type, id: from } } });
const del = (s: HttpServer, id: string, emoji: string, from: string, token: string = tokenOf(from)) =>
  s.req('DELETE', reactPath(id, emoji), { token, body: { from: { type: 'agent', id: from } } });

test('a reaction is added once: a second PUT changes nothing and counts it once', async ({ s }) => {
  const id = await send(s, roomMessage('general', 'alpha', 'ship it?'));
  const first = await put(s, id, '👍', 'beta');
  assert.is(first.status, 200, first.text);
  assert.equal(first.body.reactions, [{ emoji: '👍', count: 1, by: [`${NET}:beta`] }]);
  assert.is(first.body.changed, true);
  assert.is(first.body.reacted, true);
  const again = await put(s, id, '👍', 'beta');
  assert.is(again.status, 200);
  assert.is(again.body.changed, false);
  assert.equal(again.body.reactions, [{ emoji: '👍', count: 1, by: [`${NET}:beta`] }]);
  const other = await put(s, id, '👍', 'alpha');
  assert.equal(other.body.reactions, [{ emoji: '👍', count: 2, by: [`${NET}:beta`, `${NET}:alpha`] }]);
});

test('history shows counts and who reacted; a message without reactions keeps its shape', async ({ s }) => {
  const id = await send(s, roomMessage('general', 'alpha', 'history carries reactions'));
  const plain = await send(s, roomMessage('general', 'alpha', 'no reactions here'));
  assert.is((await put(s, id, '🎉', 'beta')).status, 200);
  assert.is((await put(s, id, ':ship:', 'alpha')).status, 200);
  const h = await s.get('/v1/rooms/general/messages?limit=5', ADMIN);
  assert.is(h.status, 200, h.text);
  const byId = new Map<string, Json>(h.body.messages.map((m: Json) => [m.id, m]));
  assert.equal(byId.get(id).reactions, [
    { emoji: '🎉', count: 1, by: [`${NET}:beta`] },
    { emoji: ':ship:', count: 1, by: [`${NET}:alpha`] },
  ]);
  assert.not.ok('reactions' in byId.get(plain));
  const one = await s.get(`/v1/messages/${id}/reactions`, ADMIN);
  assert.is(one.status, 200, one.text);
  assert.is(one.body.reactions.length, 2);
});

test('search results carry reactions', async ({ s }) => {
  const id = await send(s, roomMessage('general', 'alpha', 'zebracorn sighting'));
  assert.is((await put(s, id, '👀', 'beta')).status, 200);
  const r = await eventually(async () => {
    const x = await s.get('/v1/search?q=zebracorn', ADMIN);
    return x.body?.messages?.length === 1 ? x : undefined;
  });
  assert.equal(r!.body.messages[0].reactions, [{ emoji: '👀', count: 1, by: [`${NET}:beta`] }]);
});

test('DELETE removes a reaction, and a reaction that is not there answers 404', async ({ s }) => {
  const id = await send(s, roomMessage('general', 'alpha', 'remove me'));
  assert.is((await put(s, id, '👍', 'beta')).status, 200);
  const r = await del(s, id, '👍', 'beta');
  assert.is(r.status, 200, r.text);
  assert.equal(r.body.reactions, []);
  assert.is(r.body.reacted, false);
  const again = await del(s, id, '👍', 'beta');
  assert.is(again.status, 404);
  assert.is(again.body.code, 'not_found');
  const h = await s.get('/v1/rooms/general/messages?limit=1', ADMIN);
  assert.not.ok('reactions' in h.body.messages[0]);
});

test('keys that are not one emoji or a :name: shortcode are refused with 400', async ({ s }) => {
  const id = await send(s, roomMessage('general', 'alpha', 'validate'));
  for (const bad of ['abc', '👍👍', ':Not Ok:', 'x👍', '::', `:${'a'.repeat(40)}:`]) {
    const r = await put(s, id, bad, 'beta');
    assert.is(r.status, 400, `${bad}: ${r.text}`);
    assert.match(r.body.error, /path\.emoji/);
  }
  for (const good of ['❤️', '👍🏽', '🇫🇷', '👩‍💻', '1️⃣', ':+1:']) {
    const r = await put(s, id, good, 'beta');
    assert.is(r.status, 200, `${good}: ${r.text}`);
  }
});

test('a message carries at most 20 distinct emoji; an emoji already there is still accepted', async ({ s }) => {
  const id = await send(s, roomMessage('general', 'alpha', 'limit'));
  for (let i = 0; i < 20; i++) assert.is((await put(s, id, `:e${i}:`, 'beta')).status, 200);
  const over = await put(s, id, ':e20:', 'beta');
  assert.is(over.status, 409, over.text);
  assert.is(over.body.code, 'conflict');
  const same = await put(s, id, ':e0:', 'alpha');
  assert.is(same.status, 200, same.text);
  assert.is(same.body.reactions.length, 20);
});

test('who may react follows the write rules of the conversation', async ({ s }) => {
  const id = await send(s, roomMessage('general', 'alpha', 'rules'));
  // A write-only token speaking for delta, who is not a member of this members-policy room (an
  // admin+write token would be let in as an operator).
  {
    const r = await put(s, id, '👍', 'delta', TOKENS.writer.value);
    assert.is(r.status, 403, r.text);
    assert.match(r.body.error, /member/);
  }
  // An observe-only token may not write at all.
  {
    const r = await put(s, id, '👍', 'beta', TOKENS.observer.value);
    assert.is(r.status, 403, r.text);
  }
  // An allowlisted token may not react as another agent.
  {
    const r = await put(s, id, '👍', 'beta', ALPHA);
    assert.is(r.status, 403, r.text);
  }
  {
    const r = await put(s, id, '👍', 'alpha');
    assert.is(r.status, 200, r.text);
  }
  // Without a credential: 401.
  assert.is((await s.req('PUT', reactPath(id, '👍'), { body: { from: { type: 'agent', id: 'beta' } } })).status, 401);
  // A static token must say who reacts.
  const noFrom = await s.req('PUT', reactPath(id, '👍'), { token: ADMIN });
  assert.is(noFrom.status, 400);
  assert.match(noFrom.body.error, /body\.from/);
  // An unknown message: 404.
  {
    const r = await put(s, 'msg_nope', '👍', 'beta');
    assert.is(r.status, 404, r.text);
  }
});

test('in a DM only its participants react', async ({ s }) => {
  const id = await send(s, {
    target: { kind: 'dm', participant_ids: ['beta'] },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'psst' }],
  });
  assert.is((await put(s, id, '🤫', 'gamma')).status, 403);
  const ok = await put(s, id, '🤫', 'beta');
  assert.is(ok.status, 200, ok.text);
  const dms = await s.get('/v1/dms', ADMIN);
  const dm = dms.body.dms.find((d: Json) => d.participant_ids.includes(`${NET}:beta`) && d.participant_ids.length === 2);
  const h = await s.get(`/v1/dms/${dm.id}/messages`, ADMIN);
  assert.equal(h.body.messages.at(-1).reactions, [{ emoji: '🤫', count: 1, by: [`${NET}:beta`] }]);
});

test('reaction.updated reaches SSE viewers and an attached member, and wakes nobody', async ({ s }) => {
  const sse = await SseClient.open(s, { token: TOKENS.observer.value });
  const { c } = await attachAs(s, { network_id: NET, agent: { id: 'alpha' } }, { token: TOKENS.alphaOnly.value });
  try {
    const id = await send(s, roomMessage('general', 'beta', 'wave at @alpha'));
    await c.message('wave at @alpha');
    assert.is((await put(s, id, '👋', 'beta')).status, 200);
    const f = await sse.nextOf('reaction.updated');
    assert.equal(
      { ...f.json.reaction, from: undefined },
      {
        message_id: id,
        target: { kind: 'room', room_id: 'general' },
        emoji: '👋',
        action: 'added',
        by: `${NET}:beta`,
        from: undefined,
        count: 1,
      },
    );
    assert.is(f.json.reaction.from.id, 'beta');
    const ev = await c.next((x: Json) => x.op === 'EVENT' && x.event?.type === 'reaction.updated');
    assert.is(ev.event.reaction.emoji, '👋');
    if (ev.cursor !== undefined) c.ack(ev.cursor);
    assert.is((await del(s, id, '👋', 'beta')).status, 200);
    const removed = await sse.next((x) => x.event === 'reaction.updated' && x.json.reaction.action === 'removed');
    assert.is(removed.json.reaction.count, 0);
    // Only the mention woke alpha: the reactions are no wake (no agent.wake.* event names them).
    await new Promise((r) => setTimeout(r, 300));
    const wakes = sse.all.filter((x) => x.event?.startsWith('agent.wake.') && x.json?.agent?.message_id === id);
    assert.ok(wakes.length <= 1, JSON.stringify(wakes));
    assert.not.ok(wakes.some((w) => w.json.agent.reason !== 'mention'));
  } finally {
    sse.close();
    await c.close();
  }
});

test('an agent token reacts as its own agent without a body', async () => {
  const s = await startApp({
    config: {
      auth: { agent_registration: 'open' },
      rooms: [
        { id: 'open', members: [] },
        { id: 'ops-only', members: [], write_policy: 'operators' },
      ],
    },
  });
  try {
    const reg = await claimThenJoin(s, 'solo', ['open', 'ops-only']);
    const token = reg.body.agent_token as string;
    const sent = await s.post('/v1/messages', roomMessage('open', 'solo', 'hello'), token);
    assert.is(sent.status, 200, sent.text);
    const r = await s.req('PUT', reactPath(sent.body.message_id, '✅'), { token });
    assert.is(r.status, 200, r.text);
    assert.equal(r.body.reactions, [{ emoji: '✅', count: 1, by: [`${NET}:solo`] }]);
    // ...and cannot react as anyone else.
    const other = await s.req('PUT', reactPath(sent.body.message_id, '✅'), { token, body: { from: { type: 'agent', id: 'else' } } });
    assert.is(other.status, 403);
    // In a room where only operators write, a member's generated token may not react either.
    const ops = await s.post(
      '/v1/messages',
      { ...roomMessage('ops-only', 'ops', 'operators only'), from: { type: 'human', id: 'ops' } },
      ADMIN,
    );
    assert.is(ops.status, 200, ops.text);
    const refused = await s.req('PUT', reactPath(ops.body.message_id, '👍'), { token });
    assert.is(refused.status, 403, refused.text);
    const operator = await s.req('PUT', reactPath(ops.body.message_id, '👍'), {
      token: ADMIN,
      body: { from: { type: 'human', id: 'ops' } },
    });
    assert.is(operator.status, 200, operator.text);
  } finally {
    await s.dispose();
  }
});

test('reactions on sqlite survive kill -9 and a restart (the journal replays them)', async () => {
  const s = await startServer({ config: { rooms: [{ id: 'general', members: ['beta'] }] } });
  try {
    const id = await send(s, roomMessage('general', 'beta', 'durable?'));
    assert.is((await put(s, id, '💾', 'beta')).status, 200);
    assert.is((await put(s, id, '🔥', 'beta')).status, 200);
    assert.is((await del(s, id, '🔥', 'beta')).status, 200);
    await s.kill9();
    await s.restart();
    const h = await s.get('/v1/rooms/general/messages?limit=1', ADMIN);
    assert.equal(h.body.messages[0].reactions, [{ emoji: '💾', count: 1, by: [`${NET}:beta`] }]);
  } finally {
    await s.dispose();
  }
});

test.run();
