// Paged reads over HTTP: histories and listings share one cursor model (limit, before, after).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;

interface Ctx {
  s: AppServer;
  /** Ids of the 520 messages of room `big`, oldest first. */
  big: string[];
  /** Ids of the 5 messages of room `five`, oldest first. */
  five: string[];
}

const idsOf = (list: { id: string }[]) => list.map((x) => x.id);

/** Sends `n` messages to `room` one after another, so stored order is send order; returns their ids. */
async function fill(s: AppServer, room: string, n: number, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);
  for (const id of ids) {
    const r = await s.post('/v1/messages', { ...roomMessage(room, 'ops', id), id }, ADMIN);
    if (r.status !== 200) throw new Error(r.text);
  }
  return ids;
}

/** Agents, DMs and room messages that the allowlist tests read through the alpha-only token. */
async function allowlistFixtures(s: AppServer): Promise<void> {
  for (const id of ['beta', 'gamma', 'hidden1', 'delta', 'hidden2'])
    assert.is((await s.post('/v1/agents/register', { requested_agent_id: id }, ADMIN)).status, 200);
  const dm = (who: string[], from: string, token: string) =>
    s.post(
      '/v1/messages',
      {
        target: { kind: 'dm', participant_ids: who },
        from: { type: 'agent', id: from },
        parts: [{ kind: 'file', url: 'https://x.test/f' }],
      },
      token,
    );
  for (const [who, from, token] of [
    [['beta'], 'alpha', ALPHA],
    [['gamma'], 'ops', ADMIN],
    [['delta'], 'alpha', ALPHA],
    [['hidden1'], 'ops', ADMIN],
    [['gamma', 'delta'], 'alpha', ALPHA],
  ] as [string[], string, string][]) {
    const r = await dm(who, from, token);
    assert.is(r.status, 200, r.text);
  }
  for (const room of ['secret', 'mine']) {
    const r = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: room }, from: { type: 'agent', id: 'ops' }, parts: [{ kind: 'file', url: 'https://x.test/r' }] },
      ADMIN,
    );
    assert.is(r.status, 200, r.text);
  }
}

// One server for the file: the allowlist tests at the end use rooms, agents and DMs of their own.
const h = suite<Ctx>('paging room history');
h.before(async (c) => {
  c.s = await startApp({
    config: {
      rooms: [
        { id: 'big', members: ['ops'] },
        { id: 'five', members: ['ops'] },
        { id: 'empty', members: [] },
        { id: 'threads', members: ['ops'] },
        { id: 'shared', members: ['alpha', 'beta', 'gamma'] },
        { id: 'secret', visibility: 'private', members: ['beta'] },
        { id: 'mine', visibility: 'private', members: ['alpha', 'delta'] },
      ],
    },
  });
  c.five = await fill(c.s, 'five', 5, 'f');
  c.big = await fill(c.s, 'big', 520, 'b');
  await allowlistFixtures(c.s);
});
h.after(async (c) => c.s?.dispose());

const page = async (s: AppServer, p: string, token: string = ADMIN) => {
  const r = await s.get(p, token);
  assert.is(r.status, 200, `${p}: ${r.text}`);
  return r.body;
};

h('an empty room has an empty page with nothing more', async ({ s }) => {
  assert.equal(await page(s, '/v1/rooms/empty/messages'), { messages: [], page: { has_more: false } });
  assert.equal(await page(s, '/v1/rooms/empty/threads'), { threads: [], page: { has_more: false } });
});

h('without a limit a page holds the newest 100 messages, oldest first', async ({ s, big }) => {
  const b = await page(s, '/v1/rooms/big/messages');
  assert.equal(idsOf(b.messages), big.slice(-100));
  assert.equal(b.page, { has_more: true, next_before: big[big.length - 100] });
});

h('a limit above 500 is capped at 500', async ({ s, big }) => {
  const b = await page(s, '/v1/rooms/big/messages?limit=100000');
  assert.is(b.messages.length, 500);
  assert.equal(idsOf(b.messages), big.slice(-500));
  assert.is(b.page.has_more, true);
  assert.is((await page(s, '/v1/rooms/big/messages?limit=500')).messages.length, 500);
});

h('a room with exactly limit messages fits in one page with nothing more', async ({ s, five }) => {
  const b = await page(s, '/v1/rooms/five/messages?limit=5');
  assert.equal(idsOf(b.messages), five);
  assert.equal(b.page, { has_more: false });
});

h('following next_before walks the whole history once, without gaps or repeats', async ({ s, big }) => {
  const seen: string[] = [];
  let url = '/v1/rooms/big/messages?limit=150';
  for (let i = 0; i < 10; i++) {
    const b = await page(s, url);
    seen.unshift(...idsOf(b.messages));
    if (!b.page.has_more) break;
    url = `/v1/rooms/big/messages?limit=150&before=${b.page.next_before}`;
  }
  assert.equal(seen, big);
});

h('after returns the oldest limit messages newer than the cursor', async ({ s, five }) => {
  const b = await page(s, `/v1/rooms/five/messages?limit=2&after=${five[0]}`);
  assert.equal(idsOf(b.messages), five.slice(1, 3));
  assert.equal(b.page, { has_more: true, next_before: five[1] });
  const last = await page(s, `/v1/rooms/five/messages?limit=2&after=${five[3]}`);
  assert.equal(idsOf(last.messages), [five[4]]);
  assert.is(last.page.has_more, false);
  assert.equal((await page(s, `/v1/rooms/five/messages?after=${five[4]}`)).messages, []);
});

h('before and after together return the window between them', async ({ s, five }) => {
  const b = await page(s, `/v1/rooms/five/messages?after=${five[0]}&before=${five[4]}`);
  assert.equal(idsOf(b.messages), five.slice(1, 4));
  assert.is(b.page.has_more, false);
  const narrow = await page(s, `/v1/rooms/five/messages?limit=2&after=${five[0]}&before=${five[4]}`);
  assert.equal(idsOf(narrow.messages), five.slice(1, 3));
  assert.is(narrow.page.has_more, true);
  assert.equal((await page(s, `/v1/rooms/five/messages?after=${five[2]}&before=${five[1]}`)).messages, []);
});

h('before the oldest message is an empty page', async ({ s, five }) => {
  assert.equal(await page(s, `/v1/rooms/five/messages?before=${five[0]}`), { messages: [], page: { has_more: false } });
});

h('an unknown cursor, or one from another conversation, is a 422', async ({ s, big }) => {
  for (const q of ['before=msg_nope', 'after=msg_nope', `before=${big[0]}`, `after=${big[3]}`]) {
    const r = await s.get(`/v1/rooms/five/messages?${q}`, ADMIN);
    assert.is(r.status, 422, q);
    assert.is(r.body.code, 'unprocessable_entity');
    assert.type(r.body.request_id, 'string');
  }
});

h('a limit of 0, negative or not a number is a 400 on every list route', async ({ s }) => {
  const lists = [
    '/v1/rooms',
    '/v1/agents',
    '/v1/dms',
    '/v1/rooms/five/messages',
    '/v1/rooms/five/threads',
    '/v1/artifacts?room_id=five&x=1',
  ];
  for (const p of lists) {
    for (const v of ['0', '-3', 'ten', '2.5']) {
      const r = await s.get(`${p}${p.includes('?') ? '&' : '?'}limit=${v}`, ADMIN);
      assert.is(r.status, 400, `${p} limit=${v}`);
      assert.match(r.body.error, /^query\.limit:/);
    }
  }
});

h('thread listings and thread histories page the same way', async ({ s }) => {
  const made: string[] = [];
  for (let i = 0; i < 4; i++) {
    const id = `t${i}`;
    made.push(id);
    await s.post(
      '/v1/messages',
      {
        target: { kind: 'thread', room_id: 'threads', thread_id: id },
        from: { type: 'agent', id: 'ops' },
        parts: [{ kind: 'text', text: id }],
      },
      ADMIN,
    );
  }
  const first = await page(s, '/v1/rooms/threads/threads?limit=3');
  assert.equal(idsOf(first.threads), made.slice(1));
  assert.equal(first.page, { has_more: true, next_before: 't1' });
  assert.equal(idsOf((await page(s, '/v1/rooms/threads/threads?before=t1')).threads), ['t0']);
  assert.is((await s.get('/v1/rooms/threads/threads?before=nope', ADMIN)).status, 422);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await s.post(
      '/v1/messages',
      {
        target: { kind: 'thread', room_id: 'threads', thread_id: 't0' },
        from: { type: 'agent', id: 'ops' },
        parts: [{ kind: 'text', text: `r${i}` }],
      },
      ADMIN,
    );
    ids.push(r.body.message_id);
  }
  const tm = await page(s, '/v1/threads/t0/messages?limit=2');
  assert.equal(idsOf(tm.messages), ids.slice(1));
  assert.is(tm.page.has_more, true);
  assert.is((await s.get('/v1/threads/t0/messages?after=nope', ADMIN)).status, 422);
});

h('artifact listings page the same way', async ({ s }) => {
  await s.post('/v1/rooms', { id: 'files', members: ['ops'] }, ADMIN);
  const r = await s.post(
    '/v1/messages',
    {
      target: { kind: 'room', room_id: 'files' },
      from: { type: 'agent', id: 'ops' },
      parts: [1, 2, 3].map((n) => ({ kind: 'file', url: `https://x.test/${n}` })),
    },
    ADMIN,
  );
  assert.is(r.status, 200, r.text);
  const all = (await page(s, '/v1/artifacts?room_id=files')).artifacts as Json[];
  assert.equal(
    all.map((a) => a.part_index),
    [0, 1, 2],
  );
  const p1 = await page(s, '/v1/artifacts?room_id=files&limit=2');
  assert.equal(
    p1.artifacts.map((a: Json) => a.part_index),
    [1, 2],
  );
  assert.equal(p1.page, { has_more: true, next_before: all[1].id });
  const p2 = await page(s, `/v1/artifacts?room_id=files&before=${p1.page.next_before}`);
  assert.equal(
    p2.artifacts.map((a: Json) => a.part_index),
    [0],
  );
  assert.is((await s.get('/v1/artifacts?room_id=files&before=art_nope', ADMIN)).status, 422);
});

h('allowlist: DM listings hold only DMs with an allowed agent, and pages count only those', async ({ s }) => {
  const all = (await page(s, '/v1/dms', ALPHA)).dms as Json[];
  assert.equal(
    all.map((d) => d.participant_ids.join()),
    ['testnet:alpha,testnet:beta', 'testnet:alpha,testnet:delta', 'testnet:alpha,testnet:delta,testnet:gamma'],
  );
  const p1 = await page(s, '/v1/dms?limit=2', ALPHA);
  assert.equal(idsOf(p1.dms), idsOf(all.slice(1)));
  assert.equal(p1.page, { has_more: true, next_before: all[1].id });
  const p2 = await page(s, `/v1/dms?limit=2&before=${p1.page.next_before}`, ALPHA);
  assert.equal(idsOf(p2.dms), [all[0].id]);
  assert.is((await page(s, '/v1/dms', ADMIN)).dms.length, 5);
});

h('allowlist: a hidden DM is neither a cursor nor readable', async ({ s }) => {
  const hidden = ((await page(s, '/v1/dms', ADMIN)).dms as Json[]).find((d) => d.participant_ids.includes('testnet:hidden1'));
  assert.is((await s.get(`/v1/dms?before=${hidden.id}`, ALPHA)).status, 422);
  assert.is((await s.get(`/v1/dms/${hidden.id}/messages`, ALPHA)).status, 404);
  assert.is((await s.get(`/v1/artifacts?dm_id=${hidden.id}`, ALPHA)).status, 404);
});

h('allowlist: agent listings hold allowed agents and members of visible rooms, paged over those', async ({ s }) => {
  // alpha is allowed; beta and gamma share the public room; delta shares the private room `mine`.
  const all = idsOf((await page(s, '/v1/agents', ALPHA)).agents);
  assert.equal(all, ['alpha', 'beta', 'gamma', 'delta']);
  const p1 = await page(s, '/v1/agents?limit=3', ALPHA);
  assert.equal(idsOf(p1.agents), ['beta', 'gamma', 'delta']);
  assert.equal(idsOf((await page(s, `/v1/agents?before=${p1.page.next_before}`, ALPHA)).agents), ['alpha']);
  assert.is((await s.get('/v1/agents?after=hidden1', ALPHA)).status, 422);
  assert.is((await s.get('/v1/agents/hidden1', ALPHA)).status, 404);
  assert.equal((await page(s, '/v1/agents/beta', ALPHA)).rooms, ['shared']);
  assert.equal((await page(s, '/v1/agents/beta', ADMIN)).rooms, ['shared', 'secret']);
});

h('allowlist: room histories and artifacts of rooms without an allowed member are not readable', async ({ s }) => {
  assert.is((await s.get('/v1/rooms/secret/messages', ALPHA)).status, 404);
  assert.is((await s.get('/v1/artifacts?room_id=secret', ALPHA)).status, 404);
  assert.is((await page(s, '/v1/rooms/mine/messages', ALPHA)).messages.length, 1);
  assert.is((await page(s, '/v1/artifacts?room_id=mine', ALPHA)).artifacts.length, 1);
});

h.run();
