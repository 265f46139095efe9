import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';
import { type AttachClient, SseClient, attachAs } from '../helpers/live.js';

// One network, one run of traffic, every kind of reader: what each one receives is compared with
// what HTTP reads would show it.
//   pub   public,  members alpha beta      lobby public,  members beta
//   priv  private, members alpha beta      other private, members gamma
//   DM1   op alpha beta                    DM2   op beta gamma

interface Ctx {
  s: AppServer;
  gammaToken: string;
  anon: SseClient;
  allow: SseClient;
  agent: SseClient;
  admin: SseClient;
  alpha: AttachClient;
  betaRooms: AttachClient;
  gamma: AttachClient;
}

const t = suite<Ctx>('live visibility');

const send = async (s: AppServer, body: Json) => {
  const r = await s.post('/v1/messages', { from: { type: 'human', id: 'op' }, ...body }, TOKENS.admin.value);
  assert.is(r.status, 200, r.text);
};
const inRoom = (room: string, text: string) => ({ target: { kind: 'room', room_id: room }, parts: [{ kind: 'text', text }] });
const inThread = (room: string, thread: string, text: string) => ({
  target: { kind: 'thread', room_id: room, thread_id: thread },
  parts: [{ kind: 'text', text }],
});
const inDm = (ids: string[], text: string) => ({ target: { kind: 'dm', participant_ids: ids }, parts: [{ kind: 'text', text }] });

const sseTexts = (c: SseClient) =>
  new Set(c.all.filter((f) => f.event === 'message.created').map((f) => f.json.message.parts[0].text as string));
const attachTexts = (c: AttachClient) =>
  new Set(c.events.filter((f) => f.event.type === 'message.created').map((f) => f.event.message.parts[0].text as string));
const types = (c: SseClient) => new Set(c.all.map((f) => f.event));
const agentEvents = (c: SseClient, type: string) => c.all.filter((f) => f.event === type).map((f) => f.json.agent.agent_id as string);
const roomsCreated = (c: SseClient) => c.all.filter((f) => f.event === 'room.created').map((f) => f.json.room.id as string);
const membersUpdated = (c: SseClient) => c.all.filter((f) => f.event === 'room.members.updated').map((f) => f.json.room.id as string);

t.before(async (ctx) => {
  // The memory store: nothing here restarts the server or reads its files.
  ctx.s = await startApp({
    config: {
      store: { backend: 'memory' },
      auth: { public_read: true, agent_registration: 'open' },
      rooms: [
        { id: 'pub', members: ['alpha', 'beta'], visibility: 'public' },
        { id: 'lobby', members: ['beta'], visibility: 'public' },
        { id: 'priv', members: ['alpha', 'beta'], visibility: 'private' },
        { id: 'other', members: [], visibility: 'private' },
      ],
    },
  });
  const s = ctx.s;
  const reg = await claimThenJoin(s, 'gamma', ['other']);
  ctx.gammaToken = reg.body.agent_token;

  ctx.anon = await SseClient.open(s);
  ctx.allow = await SseClient.open(s, { token: TOKENS.alphaOnly.value });
  ctx.agent = await SseClient.open(s, { token: ctx.gammaToken });
  ctx.admin = await SseClient.open(s, { token: TOKENS.observer.value });
  for (const c of [ctx.anon, ctx.allow, ctx.agent, ctx.admin]) assert.is(c.status, 200, c.body);

  ctx.alpha = (await attachAs(s, { network_id: 'testnet', agent: { id: 'alpha' } }, { token: TOKENS.alphaOnly.value })).c;
  ctx.betaRooms = (
    await attachAs(s, { network_id: 'testnet', agent: { id: 'beta' }, capabilities: { rooms: true } }, { token: TOKENS.admin.value })
  ).c;
  ctx.gamma = (await attachAs(s, { network_id: 'testnet', agent: { id: 'gamma' } }, { token: ctx.gammaToken })).c;

  await send(s, inRoom('pub', 'v-pub'));
  await send(s, inRoom('lobby', 'v-lobby'));
  await send(s, inRoom('priv', 'v-priv'));
  await send(s, inRoom('other', 'v-other'));
  await send(s, inThread('pub', 'th-pub', 'v-thread-pub'));
  await send(s, inThread('priv', 'th-priv', 'v-thread-priv'));
  await send(s, inDm(['alpha', 'beta'], 'v-dm1'));
  await send(s, inDm(['beta', 'gamma'], 'v-dm2'));
  await send(s, {
    ...inRoom('pub', 'v-image'),
    parts: [
      { kind: 'text', text: 'v-image' },
      { kind: 'image', url: 'https://example.com/a.png', media_type: 'image/png' },
    ],
  });
  const patch = (room: string, add: string) =>
    s.req('PATCH', `/v1/rooms/${room}/members`, { token: TOKENS.admin.value, body: { add: [add], remove: [] } });
  assert.is((await patch('pub', 'delta')).status, 200);
  assert.is((await patch('other', 'epsilon')).status, 200);
  const create = (id: string, visibility: string, members: string[]) =>
    s.post('/v1/rooms', { id, name: id, members, visibility }, TOKENS.admin.value);
  assert.ok([200, 201].includes((await create('newpub', 'public', ['beta'])).status));
  assert.ok([200, 201].includes((await create('newpriv', 'private', ['gamma'])).status));
  await send(s, inRoom('pub', 'v-end'));
  await send(s, inRoom('other', 'v-end-other'));

  for (const c of [ctx.anon, ctx.allow, ctx.agent, ctx.admin]) await c.message('v-end');
  await ctx.alpha.message('v-end');
  await ctx.betaRooms.message('v-end');
  await ctx.gamma.message('v-end-other');
  for (const c of [ctx.agent, ctx.admin]) await c.message('v-end-other');
});

t.after(async (ctx) => {
  for (const c of [ctx.anon, ctx.allow, ctx.agent, ctx.admin]) c?.close();
  for (const c of [ctx.alpha, ctx.betaRooms, ctx.gamma]) await c?.close();
  await ctx.s.dispose();
});

t('an anonymous public reader gets only public room and thread events', ({ anon }) => {
  assert.equal(sseTexts(anon), new Set(['v-pub', 'v-lobby', 'v-thread-pub', 'v-image', 'v-end']));
  const got = types(anon);
  for (const hidden of ['dm.created', 'agent.connected', 'room.members.updated']) assert.not.ok(got.has(hidden), hidden);
  assert.ok(got.has('thread.created'));
  assert.equal(roomsCreated(anon), ['newpub']);
  assert.equal(
    anon.all.filter((f) => f.event === 'thread.created').map((f) => f.json.thread.id),
    ['th-pub'],
  );
});

t("an allowlisted token gets its agents' topology and public rooms", ({ allow }) => {
  assert.equal(sseTexts(allow), new Set(['v-pub', 'v-lobby', 'v-priv', 'v-thread-pub', 'v-thread-priv', 'v-dm1', 'v-image', 'v-end']));
  assert.equal(membersUpdated(allow), ['pub']);
  assert.equal(roomsCreated(allow), ['newpub']);
  assert.ok(agentEvents(allow, 'agent.connected').includes('alpha'));
  assert.not.ok(agentEvents(allow, 'agent.connected').includes('gamma'), 'gamma shares no visible room with alpha');
  assert.is(allow.all.filter((f) => f.event === 'dm.created').length, 1);
});

t('an agent token gets what its agent may read', ({ agent }) => {
  assert.equal(sseTexts(agent), new Set(['v-pub', 'v-lobby', 'v-other', 'v-thread-pub', 'v-dm2', 'v-image', 'v-end', 'v-end-other']));
  assert.equal(membersUpdated(agent).sort(), ['other', 'pub']);
  assert.equal(roomsCreated(agent).sort(), ['newpriv', 'newpub']);
  assert.ok(agentEvents(agent, 'agent.connected').includes('gamma'));
});

t('an unrestricted observer gets everything', ({ admin }) => {
  assert.equal(
    sseTexts(admin),
    new Set([
      'v-pub',
      'v-lobby',
      'v-priv',
      'v-other',
      'v-thread-pub',
      'v-thread-priv',
      'v-dm1',
      'v-dm2',
      'v-image',
      'v-end',
      'v-end-other',
    ]),
  );
  assert.equal(agentEvents(admin, 'agent.connected').sort(), ['alpha', 'beta', 'gamma']);
  assert.equal(roomsCreated(admin).sort(), ['newpriv', 'newpub']);
});

t('an attached agent gets its rooms, their threads and its DMs, not public rooms it is not in', ({ alpha, gamma }) => {
  assert.equal(attachTexts(alpha), new Set(['v-pub', 'v-priv', 'v-thread-pub', 'v-thread-priv', 'v-dm1', 'v-image', 'v-end']));
  assert.equal(attachTexts(gamma), new Set(['v-other', 'v-dm2', 'v-end-other']));
  const kinds = new Set(alpha.events.map((f) => f.event.type));
  assert.ok(kinds.has('thread.created') && kinds.has('dm.created') && kinds.has('room.members.updated'));
  assert.not.ok(kinds.has('agent.connected'), 'presence is for observers');
  assert.ok(gamma.events.some((f) => f.event.type === 'room.created' && f.event.room.id === 'newpriv'));
});

t('capabilities limit an attachment to what it declared', ({ betaRooms }) => {
  assert.equal(attachTexts(betaRooms), new Set(['v-pub', 'v-lobby', 'v-priv', 'v-image', 'v-end']));
  assert.not.ok(betaRooms.events.some((f) => f.event.type === 'thread.created' || f.event.type === 'dm.created'));
  // Without the artifacts capability a message keeps only its text parts.
  const image = betaRooms.events.find((f) => f.event.message?.parts[0].text === 'v-image');
  assert.equal(image.event.message.parts, [{ kind: 'text', text: 'v-image' }]);
});

t('an attachment that declares artifacts gets every part', ({ alpha }) => {
  const image = alpha.events.find((f) => f.event.message?.parts[0].text === 'v-image');
  assert.is(image.event.message.parts.length, 2);
  assert.is(image.event.message.parts[1].kind, 'image');
});

t.run();

// With only attachments open, presence events are published without an audience (no attachment
// receives them); a stream that opens later must still get the next one judged by its rooms.
const lazy = suite('presence audiences, read only when an open subscriber may receive them');

lazy('a stream opened while only attachments are open sees the next agent connect through a room they share', async () => {
  const s = await startApp({
    config: {
      rooms: [
        { id: 'shared', members: ['alpha', 'beta'], visibility: 'private' },
        { id: 'apart', members: ['gamma'], visibility: 'private' },
      ],
    },
  });
  try {
    const gamma = await attachAs(s, { network_id: 'testnet', agent: { id: 'gamma' } }, { token: TOKENS.admin.value });
    // Its agent.connected is published while no stream is open.
    await new Promise((r) => setTimeout(r, 200));
    const sse = await SseClient.open(s, { token: TOKENS.alphaOnly.value });
    try {
      const beta = await attachAs(s, { network_id: 'testnet', agent: { id: 'beta' } }, { token: TOKENS.admin.value });
      const up = await sse.nextOf('agent.connected');
      assert.is(up.json.agent.agent_id, 'beta');
      await beta.c.close();
      assert.is((await sse.nextOf('agent.disconnected')).json.agent.agent_id, 'beta');
      // gamma shares no room with alpha: its presence never reaches this stream.
      await gamma.c.close();
      await new Promise((r) => setTimeout(r, 300));
      assert.not.ok(sse.all.some((f) => f.json?.agent?.agent_id === 'gamma'));
    } finally {
      sse.close();
    }
  } finally {
    await s.dispose();
  }
});

lazy.run();
