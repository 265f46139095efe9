import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { SseClient, metricValue } from '../helpers/live.js';

const say = async (s: AppServer, room: string, text: string) => {
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: room }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text }] },
    TOKENS.admin.value,
  );
  assert.is(r.status, 200, r.text);
  return r.body as { message_id: string; event_id: string };
};
const texts = (s: SseClient) => s.all.filter((f) => f.event === 'message.created').map((f) => f.json.message.parts[0].text as string);

const stream = suite<{ s: AppServer }>('the SSE event stream');
stream.before(async (ctx) => {
  // The memory store: nothing here restarts the server or catches up from the store (the replay
  // gap suite below stays on sqlite).
  ctx.s = await startApp({
    config: {
      store: { backend: 'memory' },
      server: { heartbeat_interval_ms: 300 },
      rooms: [
        { id: 'general', members: ['alpha'] },
        { id: 'side', members: ['alpha'] },
      ],
    },
  });
});
stream.after(async ({ s }) => s.dispose());

stream('sends id, event and data frames carrying the event envelope', async ({ s }) => {
  const c = await SseClient.open(s, { token: TOKENS.observer.value });
  assert.is(c.status, 200);
  assert.match(String(c.headers['content-type']), 'text/event-stream');
  assert.is(c.headers['cache-control'], 'no-store');
  const sent = await say(s, 'general', 'hello stream');
  const f = await c.message('hello stream');
  assert.is(f.id, sent.event_id);
  assert.is(f.event, 'message.created');
  assert.is(f.json.id, sent.event_id);
  assert.is(f.json.type, 'message.created');
  assert.is(f.json.network_id, 'testnet');
  assert.match(f.json.created_at, /Z$/);
  assert.is(f.json.message.id, sent.message_id);
  assert.equal(f.json.message.target, { kind: 'room', room_id: 'general' });
  c.close();
});

stream('replays the events after Last-Event-ID before live ones, none twice', async ({ s }) => {
  const first = await SseClient.open(s, { token: TOKENS.observer.value });
  await say(s, 'general', 'r1');
  const r1 = await first.message('r1');
  first.close();
  await say(s, 'general', 'r2');
  await say(s, 'general', 'r3');
  const again = await SseClient.open(s, { token: TOKENS.observer.value, lastEventId: r1.id! });
  await again.message('r3');
  await say(s, 'general', 'r4');
  await again.message('r4');
  assert.equal(texts(again), ['r2', 'r3', 'r4']);
  assert.not.ok(again.all.some((f) => f.event === 'stream.replay_gap'));
  again.close();
});

stream('accepts the replay cursor as a last_event_id query parameter too', async ({ s }) => {
  const first = await SseClient.open(s, { token: TOKENS.observer.value });
  await say(s, 'general', 'q1');
  const q1 = await first.message('q1');
  first.close();
  await say(s, 'general', 'q2');
  const again = await SseClient.open(s, { token: TOKENS.observer.value, query: `last_event_id=${q1.id}` });
  await again.message('q2');
  assert.equal(texts(again), ['q2']);
  again.close();
});

stream('sends keep-alive comments while idle', async ({ s }) => {
  const c = await SseClient.open(s, { token: TOKENS.observer.value });
  const end = Date.now() + 5000;
  while (!c.comments.includes('keep-alive') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  assert.ok(c.comments.includes('keep-alive'), `comments: ${c.comments.join(', ')}`);
  c.close();
});

stream('filters by room and by type when asked', async ({ s }) => {
  const c = await SseClient.open(s, { token: TOKENS.observer.value, query: 'room_id=side&type=message.created' });
  await say(s, 'general', 'not here');
  await say(s, 'side', 'over here');
  await c.message('over here');
  assert.equal(texts(c), ['over here']);
  assert.ok(c.all.every((f) => f.event === 'message.created'));
  c.close();
});

stream('carries the events of topology operations, in the order they happen', async ({ s }) => {
  const c = await SseClient.open(s, { token: TOKENS.observer.value });
  const admin = TOKENS.admin.value;
  assert.ok([200, 201].includes((await s.post('/v1/rooms', { id: 'made', name: 'Made', members: ['alpha'] }, admin)).status));
  const created = await c.nextOf('room.created');
  assert.is(created.json.room.id, 'made');
  assert.is((await s.req('PATCH', '/v1/rooms/made/members', { token: admin, body: { add: ['beta'], remove: ['alpha'] } })).status, 200);
  const members = await c.nextOf('room.members.updated');
  assert.equal([members.json.room.id, members.json.added, members.json.removed], ['made', ['beta'], ['alpha']]);

  const thread = await s.post(
    '/v1/messages',
    {
      target: { kind: 'thread', room_id: 'general', thread_id: 'th1' },
      from: { type: 'human', id: 'op' },
      parts: [{ kind: 'text', text: 'in thread' }],
    },
    admin,
  );
  assert.is(thread.status, 200, thread.text);
  const th = await c.next((f) => f.event === 'thread.created' || f.event === 'message.created');
  assert.is(th.event, 'thread.created', 'thread.created comes before its first message');
  assert.is(th.json.thread.id, 'th1');
  await c.message('in thread');

  const dm = await s.post(
    '/v1/messages',
    { target: { kind: 'dm', participant_ids: ['alpha'] }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text: 'in dm' }] },
    admin,
  );
  assert.is(dm.status, 200, dm.text);
  const dmc = await c.next((f) => f.event === 'dm.created' || f.event === 'message.created');
  assert.is(dmc.event, 'dm.created');
  assert.equal(dmc.json.dm.participant_ids, ['testnet:alpha', 'testnet:op']);
  await c.message('in dm');

  assert.is((await s.req('DELETE', '/v1/rooms/made', { token: admin })).status, 200);
  const removed = await c.nextOf('room.removed');
  assert.is(removed.json.room_id, 'made');
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'temp' }, admin)).status, 200);
  assert.is((await s.req('DELETE', '/v1/agents/temp', { token: admin })).status, 200);
  const gone = await c.nextOf('agent.removed');
  assert.is(gone.json.agent.agent_id, 'temp');
  c.close();
});

stream('needs an observe or admin credential when public read is off', async ({ s }) => {
  const anon = await SseClient.open(s);
  assert.is(anon.status, 401);
  assert.is(JSON.parse(anon.body).code, 'unauthorized');
  const bad = await SseClient.open(s, { token: 'nope-nope' });
  assert.is(bad.status, 401);
  const writer = await SseClient.open(s, { token: TOKENS.writer.value });
  assert.is(writer.status, 403);
  assert.is(JSON.parse(writer.body).code, 'forbidden');
  const pair = await SseClient.open(s, { token: TOKENS.pair.value });
  assert.is(pair.status, 403);
  const admin = await SseClient.open(s, { token: TOKENS.adminOnly.value });
  assert.is(admin.status, 200);
  admin.close();
});

stream('accepts the console session cookie as the credential, like the header', async ({ s }) => {
  const boot = await fetch(`${s.url}/console/?access_token=${TOKENS.observer.value}`, { redirect: 'manual' });
  const cookie = (boot.headers.get('set-cookie') ?? '').split(';')[0]!;
  assert.ok(cookie.includes('='), `the console set a session cookie (status ${boot.status})`);
  const c = await SseClient.open(s, { headers: { cookie } });
  assert.is(c.status, 200, c.body);
  await say(s, 'general', 'cookie reader');
  await c.message('cookie reader');
  c.close();
  const stale = await SseClient.open(s, { headers: { cookie: `${cookie.split('=')[0]}=not-a-session` } });
  assert.is(stale.status, 401);
});

stream.run();

const gap = suite<{ s: AppServer }>('a replay cursor older than the buffer');
gap.before(async (ctx) => {
  ctx.s = await startApp({ config: { server: { event_buffer: 3 }, rooms: [{ id: 'general', members: ['alpha'] }] } });
});
gap.after(async ({ s }) => s.dispose());

gap('yields stream.replay_gap first, then what the buffer still holds', async ({ s }) => {
  const first = await SseClient.open(s, { token: TOKENS.observer.value });
  await say(s, 'general', 'g1');
  const g1 = await first.message('g1');
  first.close();
  for (const t of ['g2', 'g3', 'g4', 'g5']) await say(s, 'general', t);
  const again = await SseClient.open(s, { token: TOKENS.observer.value, lastEventId: g1.id! });
  const head = await again.next();
  assert.is(head.event, 'stream.replay_gap');
  assert.is(head.id, undefined, 'the gap frame leaves the client cursor alone');
  assert.is(head.json.type, 'stream.replay_gap');
  assert.is(head.json.network_id, 'testnet');
  await again.message('g5');
  assert.equal(texts(again), ['g3', 'g4', 'g5']);
  again.close();
});

gap('treats an unknown id the same way', async ({ s }) => {
  const c = await SseClient.open(s, { token: TOKENS.observer.value, lastEventId: 'evt_unknown' });
  assert.is((await c.next()).event, 'stream.replay_gap');
  c.close();
});

gap.run();

const slow = suite<{ s: AppServer }>('a slow SSE consumer');
slow.before(async (ctx) => {
  ctx.s = await startApp({ config: { store: { backend: 'memory' }, rooms: [{ id: 'general', members: ['alpha'] }] } });
});
slow.after(async ({ s }) => s.dispose());

slow('is dropped and counted without stalling the other streams', async ({ s }) => {
  const stuck = await SseClient.open(s, { token: TOKENS.observer.value });
  const fine = await SseClient.open(s, { token: TOKENS.observer.value });
  stuck.pause();
  const big = 'y'.repeat(300 * 1024);
  const sent: string[] = [];
  for (let i = 0; i < 200; i++) {
    const text = `flood-${i} ${big}`;
    sent.push(text);
    await say(s, 'general', text);
    if (i >= 30 && i % 10 === 0 && ((await metricValue(s, TOKENS.admin.value, 'svc_broker_drops_total{surface="sse"}')) ?? 0) >= 1) break;
  }
  assert.ok(((await metricValue(s, TOKENS.admin.value, 'svc_broker_drops_total{surface="sse"}')) ?? 0) >= 1, 'the drop is counted');
  await fine.message(sent[sent.length - 1]!, 20000);
  assert.equal(texts(fine), sent);
  // The dropped stream ends once the client reads what was already in flight.
  stuck.resume();
  await stuck.next(() => false, 20000).catch(() => undefined);
  assert.ok(stuck.ended, 'the slow stream was cut');
  assert.ok(texts(stuck).length < sent.length);
  assert.is(await metricValue(s, TOKENS.admin.value, 'svc_sse_subscribers'), 1);
  fine.close();
});

slow.run();
