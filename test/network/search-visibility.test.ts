// Search never shows a caller a message it could not read in history, and shows every one it
// could: for each kind of caller the results are compared with what the history routes give the
// same credential. Small pages show that hidden messages are filtered before the page is cut.
//   pub    public,  members alpha beta     lobby  public,  members beta
//   priv   private, members alpha beta     other  private, members gamma
//   gone   public, removed                 threads in pub, priv and other
//   DM1    alpha beta                      DM2    beta gamma

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testConfig, writeConfig, TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';

const ADMIN = TOKENS.admin.value;
const ROOMS = ['pub', 'lobby', 'priv', 'other', 'gone'];
const THREADS = ['th-pub', 'th-priv', 'th-other'];

interface Ctx {
  s: AppServer;
  /** Caller name -> bearer token (undefined: anonymous). */
  callers: Record<string, string | undefined>;
  dms: string[];
}

const send = async (s: AppServer, body: Json) => {
  const r = await s.post('/v1/messages', { from: { type: 'human', id: 'op' }, ...body }, ADMIN);
  assert.is(r.status, 200, r.text);
};
const inRoom = (room: string, text: string) => ({ target: { kind: 'room', room_id: room }, parts: [{ kind: 'text', text }] });
const inThread = (room: string, thread: string, text: string) => ({
  target: { kind: 'thread', room_id: room, thread_id: thread },
  parts: [{ kind: 'text', text }],
});
const inDm = (ids: string[], text: string) => ({ target: { kind: 'dm', participant_ids: ids }, parts: [{ kind: 'text', text }] });

/** Every message id the caller can read through the history routes. */
async function readableInHistory(c: Ctx, token: string | undefined): Promise<Set<string>> {
  const out = new Set<string>();
  const paths = [
    ...ROOMS.map((r) => `/v1/rooms/${r}/messages`),
    ...THREADS.map((t) => `/v1/threads/${t}/messages`),
    ...c.dms.map((d) => `/v1/dms/${d}/messages`),
  ];
  for (const p of paths) {
    const r = await c.s.get(`${p}?limit=500`, token);
    if (r.status === 200) for (const m of r.body.messages) out.add(m.id);
  }
  return out;
}

/** Every page of a search for `q`, `limit` at a time; asserts each page but the last is full. */
async function searchAll(s: AppServer, token: string | undefined, q: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let before: string | undefined;
  for (;;) {
    const r = await s.get(`/v1/search?q=${q}&limit=${limit}${before ? `&before=${before}` : ''}`, token);
    assert.is(r.status, 200, r.text);
    for (const m of r.body.messages) ids.push(m.id);
    if (!r.body.page.has_more) return ids;
    assert.is(r.body.messages.length, limit, 'a page with more behind it is full');
    before = r.body.page.next_before;
  }
}

async function assertMatrix(c: Ctx): Promise<void> {
  for (const [name, token] of Object.entries(c.callers)) {
    const readable = await readableInHistory(c, token);
    const found = await searchAll(c.s, token, 'needle', 3);
    assert.equal(new Set(found).size, found.length, `${name}: no message twice`);
    assert.equal([...found].sort(), [...readable].sort(), `${name}: search finds exactly what history shows`);
    // A word only in messages the caller cannot read finds nothing, not an error.
    const hidden = await c.s.get('/v1/search?q=needle+otheronly', token);
    assert.is(hidden.status, 200);
    const otherReadable = (await c.s.get('/v1/rooms/other/messages', token)).status === 200;
    assert.is(hidden.body.messages.length, otherReadable ? 1 : 0, name);
  }
}

const t = suite<Ctx>('search visibility');

t.before(async (c) => {
  c.s = await startApp({
    config: {
      auth: { public_read: true, agent_registration: 'open' },
      rooms: [
        { id: 'pub', members: ['alpha', 'beta'], visibility: 'public' },
        { id: 'lobby', members: ['beta'], visibility: 'public' },
        { id: 'priv', members: ['alpha', 'beta'], visibility: 'private' },
        { id: 'other', members: [], visibility: 'private' },
        { id: 'gone', members: [], visibility: 'public' },
      ],
    },
  });
  const s = c.s;
  const reg = await claimThenJoin(s, 'gamma', ['other']);
  c.callers = { anonymous: undefined, allowlisted: TOKENS.alphaOnly.value, agent: reg.body.agent_token, observer: TOKENS.observer.value };
  // Interleaved so that hidden messages sit between visible ones in time.
  for (let i = 0; i < 4; i++) {
    await send(s, inRoom('pub', `needle pub ${i}`));
    await send(s, inRoom('priv', `needle priv ${i}`));
    await send(s, inRoom('other', i === 0 ? 'needle otheronly other 0' : `needle other ${i}`));
    await send(s, inThread('priv', 'th-priv', `needle thread priv ${i}`));
    await send(s, inDm(['alpha', 'beta'], `needle dm one ${i}`));
    await send(s, inDm(['beta', 'gamma'], `needle dm two ${i}`));
    await send(s, inRoom('lobby', `needle lobby ${i}`));
    await send(s, inThread('pub', 'th-pub', `needle thread pub ${i}`));
    await send(s, inThread('other', 'th-other', `needle thread other ${i}`));
    await send(s, inRoom('gone', `needle gone ${i}`));
  }
  assert.is((await s.req('DELETE', '/v1/rooms/gone', { token: ADMIN })).status, 200);
  c.dms = (await s.get('/v1/dms', ADMIN)).body.dms.map((d: { id: string }) => d.id);
  assert.is(c.dms.length, 2);
});
t.after(async (c) => c.s.dispose());

t('each caller finds exactly the messages its history reads show, in full pages', async (c) => {
  await assertMatrix(c);
});

t('the callers see different things (the matrix is not trivially equal)', async (c) => {
  const counts: Record<string, number> = {};
  for (const [name, token] of Object.entries(c.callers)) counts[name] = (await searchAll(c.s, token, 'needle', 100)).length;
  // anonymous: pub, lobby, th-pub; allowlisted alpha: + priv, th-priv, DM1; agent gamma: public + other, th-other, DM2;
  // observer: everything but the removed room.
  assert.equal(counts, { anonymous: 12, allowlisted: 24, agent: 24, observer: 36 });
});

t('a named conversation is refused exactly as its history is, and finds what its history holds', async (c) => {
  // A room filter covers the room's threads too.
  const cases: [string, string[]][] = [
    ['room_id=priv', ['/v1/rooms/priv/messages', '/v1/threads/th-priv/messages']],
    ['room_id=other', ['/v1/rooms/other/messages', '/v1/threads/th-other/messages']],
    ['room_id=gone', ['/v1/rooms/gone/messages']],
    ['thread_id=th-priv', ['/v1/threads/th-priv/messages']],
    ['thread_id=th-other', ['/v1/threads/th-other/messages']],
    [`dm_id=${c.dms[0]}`, [`/v1/dms/${c.dms[0]}/messages`]],
    [`dm_id=${c.dms[1]}`, [`/v1/dms/${c.dms[1]}/messages`]],
  ];
  for (const [name, token] of Object.entries(c.callers)) {
    for (const [filter, histories] of cases) {
      const hs = await Promise.all(histories.map((p) => c.s.get(`${p}?limit=500`, token)));
      const r = await c.s.get(`/v1/search?q=needle&limit=100&${filter}`, token);
      assert.is(r.status, hs[0]!.status, `${name} ${filter}`);
      if (r.status !== 200) continue;
      const expected = hs.flatMap((h) => h.body.messages.map((m: { id: string }) => m.id)).sort();
      assert.equal(r.body.messages.map((m: { id: string }) => m.id).sort(), expected, `${name} ${filter}`);
    }
  }
});

t('with DMs turned off, no DM message is found by anyone, and a DM filter is 403', async (c) => {
  await c.s.stop();
  writeConfig(
    c.s.dir,
    testConfig({
      server: { direct_messages: false },
      auth: { public_read: true, agent_registration: 'open' },
      rooms: [
        { id: 'pub', members: ['alpha', 'beta'], visibility: 'public' },
        { id: 'lobby', members: ['beta'], visibility: 'public' },
        { id: 'priv', members: ['alpha', 'beta'], visibility: 'private' },
        { id: 'other', members: ['gamma'], visibility: 'private' },
      ],
    }),
  );
  await c.s.restart();
  await assertMatrix(c);
  for (const [name, token] of Object.entries(c.callers)) {
    const found = await searchAll(c.s, token, 'dm', 100);
    assert.equal(found, [], name);
    assert.is((await c.s.get(`/v1/search?q=needle&dm_id=${c.dms[0]}`, token)).status, 403, name);
    assert.is((await c.s.get(`/v1/dms/${c.dms[0]}/messages`, token)).status, 403, name);
  }
});

t.run();
