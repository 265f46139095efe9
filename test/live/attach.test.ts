import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { AttachClient, SseClient, UpgradeRefused, attachAs, metricValue, rejectedIdentify } from '../helpers/live.js';
import { capabilitiesOf, cursorOf, FrameError, parseClientFrame } from '../../src/live/attach/frames.js';
import { defaultOrigins, originAllowed } from '../../src/live/origin.js';

const NET = 'testnet';
/** For the suites that neither restart the server nor catch up from the store: its start costs less. */
const MEMORY = { backend: 'memory' };
const human = (room: string, text: string, extra: Record<string, Json> = {}) => ({
  target: { kind: 'room', room_id: room },
  from: { type: 'human', id: 'op' },
  parts: [{ kind: 'text', text }],
  ...extra,
});
const say = async (s: AppServer, room: string, text: string) => {
  const r = await s.post('/v1/messages', human(room, text), TOKENS.admin.value);
  assert.is(r.status, 200, r.text);
  return r.body as { message_id: string; event_id: string };
};
const identity = (id: string, extra: Record<string, Json> = {}) => ({ network_id: NET, agent: { id }, ...extra });
const texts = (frames: Json[]) =>
  frames.filter((f) => f.event?.type === 'message.created').map((f) => f.event.message.parts[0].text as string);

// ---------------------------------------------------------------------------------------------

const frames = suite('parsing attachment frames');

frames('accepts an IDENTIFY with a numeric or decimal string cursor', () => {
  const f = parseClientFrame(
    Buffer.from(JSON.stringify({ op: 'IDENTIFY', network_id: 'n', agent: { id: 'a' }, cursor: '12', extra: 1 })),
    false,
  );
  assert.is(f.op, 'IDENTIFY');
  assert.is(cursorOf((f as { cursor: string }).cursor), 12);
  assert.is(cursorOf(7), 7);
  assert.is(cursorOf(''), undefined);
});

frames('names the field and the problem of a bad frame', () => {
  const bad = (v: unknown, binary = false) => {
    try {
      parseClientFrame(Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)), binary);
    } catch (err) {
      assert.instance(err, FrameError);
      return (err as FrameError).message;
    }
    throw new Error('parsed');
  };
  assert.match(bad('{nope'), 'not valid UTF-8 JSON');
  assert.match(bad([1]), 'one JSON object');
  assert.match(bad({ op: 'HELLO' }), 'frame.op: must be one of IDENTIFY, ACK, PING, PONG, ERROR');
  assert.match(bad({ op: 'IDENTIFY', agent: { id: 'a' } }), 'IDENTIFY.network_id: is required');
  assert.match(bad({ op: 'IDENTIFY', network_id: 'n', agent: { id: '-x' } }), 'IDENTIFY.agent.id: must be an id');
  assert.match(bad({ op: 'ACK', cursor: 'abc' }), 'ACK.cursor: must be a cursor');
  assert.match(bad({ op: 'ACK', cursor: -1 }), 'ACK.cursor: must be at least 0');
  assert.match(bad({ op: 'PING' }, true), 'text frames');
});

frames('delivers everything without capabilities and only what is declared with them', () => {
  assert.equal(capabilitiesOf(undefined), { rooms: true, threads: true, dms: true, artifacts: true });
  assert.equal(capabilitiesOf({ rooms: true, dms: false }), { rooms: true, threads: false, dms: false, artifacts: false });
});

frames.run();

const origins = suite('checking browser origins');

origins('derives localhost origins from the bound address', () => {
  const list = defaultOrigins('127.0.0.1', 8787);
  assert.ok(list.includes('http://localhost:8787'));
  assert.ok(list.includes('http://127.0.0.1:8787'));
  assert.ok(list.includes('http://[::1]:8787'));
  assert.ok(originAllowed('http://localhost:8787', list));
  assert.not.ok(originAllowed('http://localhost:9999', list));
  assert.not.ok(originAllowed('https://evil.example', list));
  assert.not.ok(originAllowed('null', list));
});

origins('lets non-browser clients (no Origin) through and honours an explicit list', () => {
  assert.ok(originAllowed(undefined, []));
  assert.ok(originAllowed('https://app.example', ['https://app.example:443']));
  assert.ok(originAllowed('https://anything.example', ['*']));
  assert.ok(defaultOrigins('10.0.0.5', 80).includes('http://10.0.0.5:80'));
  assert.not.ok(defaultOrigins('0.0.0.0', 80).some((o) => o.includes('0.0.0.0')));
});

origins.run();

// ---------------------------------------------------------------------------------------------

const hs = suite<{ s: AppServer }>('attaching with a static token');
hs.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      store: MEMORY,
      auth: { agent_registration: 'disabled' },
      rooms: [{ id: 'general', members: ['alpha', 'beta', 'gamma'] }],
    },
  });
});
hs.after(async ({ s }) => s.dispose());

hs('greets with HELLO, answers IDENTIFY with READY and then sends EVENT frames', async ({ s }) => {
  const c = await AttachClient.open(s, { token: TOKENS.alphaOnly.value });
  assert.equal(await c.next('HELLO'), { op: 'HELLO', version: 'service.attach.v1', heartbeat_interval_ms: 30000 });
  c.send({
    op: 'IDENTIFY',
    network_id: NET,
    agent: { id: 'alpha', name: 'Alpha' },
    capabilities: { rooms: true, threads: true, dms: true, artifacts: true },
  });
  const ready = await c.next('READY');
  assert.is(ready.network_id, NET);
  assert.is(ready.agent_id, 'alpha');
  assert.is(ready.actor_uri, 'svc://testnet/agents/alpha');
  assert.match(ready.actor_uid, /^act_/);
  assert.is(ready.agent_token, undefined);
  assert.match(ready.cursor, /^\d+$/);
  const sent = await say(s, 'general', 'first words');
  const ev = await c.message('first words');
  assert.match(ev.cursor, /^\d+$/);
  assert.ok(Number(ev.cursor) > Number(ready.cursor));
  assert.is(ev.event.id, sent.event_id);
  assert.is(ev.event.network_id, NET);
  assert.is(ev.event.message.id, sent.message_id);
  assert.equal(ev.event.message.target, { kind: 'room', room_id: 'general' });
  await c.close();
});

hs('answers a client PING with PONG', async ({ s }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  c.send({ op: 'PING' });
  await c.next('PONG');
  await c.close();
});

hs('rejects a network id mismatch before READY', async ({ s }) => {
  const r = await rejectedIdentify(s, { network_id: 'elsewhere', agent: { id: 'alpha' } }, { token: TOKENS.alphaOnly.value });
  assert.is(r.error.op, 'ERROR');
  assert.is(r.error.code, 'network_mismatch');
  assert.match(r.error.error, 'elsewhere');
  assert.is(r.close.code, 1008);
  assert.not.ok(r.frames.some((f) => f.op === 'READY'));
});

hs('rejects an agent outside the token allowlist before READY', async ({ s }) => {
  const r = await rejectedIdentify(s, identity('beta'), { token: TOKENS.alphaOnly.value });
  assert.is(r.error.code, 'forbidden');
  assert.match(r.error.error, 'allowlist');
  assert.not.ok(r.frames.some((f) => f.op === 'READY'));
});

hs('rejects an agent registered to a different credential before READY', async ({ s }) => {
  // alpha belongs to the alpha-only token since the first test.
  const r = await rejectedIdentify(s, identity('alpha'), { token: TOKENS.admin.value });
  assert.is(r.error.code, 'conflict');
  assert.match(r.error.error, 'another credential');
  assert.not.ok(r.frames.some((f) => f.op === 'READY'));
});

hs('refuses a second runtime with the same credential while the first keeps working', async ({ s }) => {
  const { c: first } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  const r = await rejectedIdentify(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  assert.is(r.error.code, 'session_in_use');
  assert.match(r.error.error, 'already has an active attachment');
  // This instance names the holder: its User-Agent (this test client sends none), address and since when.
  assert.match(r.error.error, /held by a client that sent no User-Agent from 127\.0\.0\.1 since \d{4}-\d\d-\d\dT/);
  await say(s, 'general', 'still here');
  await first.message('still here');
  await first.close();
  // Once the first is gone the agent may attach again.
  const again = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  await again.c.close();
});

hs('rejects a new claim the credential may not make (registration disabled) before READY', async ({ s }) => {
  const r = await rejectedIdentify(s, identity('fresh'), { token: TOKENS.attacher.value });
  assert.is(r.error.code, 'forbidden');
  assert.match(r.error.error, 'registration is disabled');
  assert.not.ok(r.frames.some((f) => f.op === 'READY'));
  assert.is((await s.get('/v1/agents/fresh', TOKENS.observer.value)).status, 404, 'nothing was registered');
});

hs('rejects a first frame that is not IDENTIFY', async ({ s }) => {
  const c = await AttachClient.open(s, { token: TOKENS.admin.value });
  await c.next('HELLO');
  c.ack('1');
  const e = await c.next('ERROR');
  assert.is(e.code, 'unexpected_frame');
  assert.is((await c.closed).code, 1008);
});

hs('rejects malformed frames with the field at fault', async ({ s }) => {
  const cases: [string | Buffer, boolean, string][] = [
    ['{not json', false, 'not valid UTF-8 JSON'],
    [JSON.stringify({ op: 'IDENTIFY', network_id: NET, agent: { id: 'bad id!' } }), false, 'IDENTIFY.agent.id: must be an id'],
    [JSON.stringify({ op: 'IDENTIFY', agent: { id: 'x' } }), false, 'IDENTIFY.network_id: is required'],
    [Buffer.from('{"op":"PING"}'), true, 'text frames'],
  ];
  for (const [data, binary, problem] of cases) {
    const c = await AttachClient.open(s, { token: TOKENS.admin.value });
    await c.next('HELLO');
    c.ws.send(data, { binary });
    const e = await c.next('ERROR');
    assert.is(e.code, 'bad_frame');
    assert.match(e.error, problem);
    await c.closed;
  }
});

hs('rejects IDENTIFY sent twice and an ACK beyond what was delivered', async ({ s }) => {
  const { c } = await attachAs(s, identity('gamma'), { token: TOKENS.admin.value });
  c.send({ op: 'IDENTIFY', ...identity('gamma') });
  assert.is((await c.next('ERROR')).code, 'unexpected_frame');
  await c.closed;
  const { c: d, ready } = await attachAs(s, identity('gamma'), { token: TOKENS.admin.value });
  d.ack(Number(ready.cursor) + 1000);
  const e = await d.next('ERROR');
  assert.is(e.code, 'bad_cursor');
  await d.closed;
});

hs('refuses the upgrade without a credential, with a bad one, or without the attach scope', async ({ s }) => {
  const refused = async (token?: string) => {
    try {
      const c = await AttachClient.open(s, token ? { token } : {});
      await c.close();
    } catch (err) {
      assert.instance(err, UpgradeRefused);
      return err as UpgradeRefused;
    }
    throw new Error('upgrade accepted');
  };
  const none = await refused();
  assert.is(none.status, 401);
  assert.is(JSON.parse(none.body).code, 'unauthorized');
  assert.is((await refused('not-a-token')).status, 401);
  const observer = await refused(TOKENS.observer.value);
  assert.is(observer.status, 403);
  assert.is(JSON.parse(observer.body).code, 'forbidden');
  assert.not.match(observer.body, TOKENS.observer.value);
});

hs('checks a browser Origin against the localhost origins of the listen address', async ({ s }) => {
  try {
    await AttachClient.open(s, { token: TOKENS.admin.value, headers: { origin: 'https://evil.example' } });
    assert.unreachable('accepted a foreign origin');
  } catch (err) {
    assert.instance(err, UpgradeRefused);
    assert.is((err as UpgradeRefused).status, 403);
    assert.match((err as UpgradeRefused).body, 'allowed_origins');
  }
  const ok = await AttachClient.open(s, { token: TOKENS.admin.value, headers: { origin: `http://localhost:${s.port}` } });
  await ok.next('HELLO');
  await ok.close();
});

hs('closes on a frame over 1 MiB', async ({ s }) => {
  const { c } = await attachAs(s, identity('gamma'), { token: TOKENS.admin.value });
  c.send({ op: 'PING', pad: 'x'.repeat(1024 * 1024 + 10) });
  assert.is((await c.closed).code, 1009);
});

hs.run();

// ---------------------------------------------------------------------------------------------

const open = suite<{ s: AppServer }>('attaching under open registration');
open.before(async (ctx) => {
  ctx.s = await startApp({
    // newbie joins general once claimed: a declared member's id is reserved for the operator's credentials.
    config: { store: MEMORY, auth: { mode: 'open', agent_registration: 'open' }, rooms: [{ id: 'general', members: [] }] },
  });
});
open.after(async ({ s }) => s.dispose());

open('gives an anonymous first claim its agent token in READY, once', async ({ s }) => {
  const { c, ready } = await attachAs(s, { network_id: NET, agent: { id: 'newbie', name: 'Newbie' } });
  assert.match(ready.agent_token, /^agt_v1_/);
  await c.close();
  const joined = await s.req('PATCH', '/v1/rooms/general/members', { token: TOKENS.admin.value, body: { add: ['newbie'] } });
  assert.is(joined.status, 200, joined.text);
  const again = await attachAs(s, identity('newbie'), { token: ready.agent_token });
  assert.is(again.ready.agent_token, undefined);
  assert.is(again.ready.agent_id, 'newbie');
  await say(s, 'general', 'welcome');
  await again.c.message('welcome');
  await again.c.close();
});

open('rejects an already registered agent attached without its token', async ({ s }) => {
  const r = await rejectedIdentify(s, identity('newbie'));
  assert.is(r.error.code, 'conflict');
  assert.match(r.error.error, 'already registered');
  assert.not.ok(r.frames.some((f) => f.op === 'READY'));
});

open('rejects an agent token asserting another agent', async ({ s }) => {
  const { c, ready } = await attachAs(s, identity('other'));
  await c.close();
  const r = await rejectedIdentify(s, identity('newbie'), { token: ready.agent_token });
  assert.is(r.error.code, 'forbidden');
});

open.run();

// ---------------------------------------------------------------------------------------------

const resume = suite<{ s: AppServer }>('resuming an attachment by cursor');
resume.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', members: ['alpha'] }] } });
});
resume.after(async ({ s }) => s.dispose());

resume('delivers everything after the cursor once, also after a server restart', async ({ s }) => {
  const token = TOKENS.alphaOnly.value;
  const { c } = await attachAs(s, identity('alpha'), { token });
  for (const t of ['m1', 'm2', 'm3']) await say(s, 'general', t);
  await c.message('m3');
  const m2 = c.events.find((f) => f.event.message?.parts[0].text === 'm2');
  c.ack(m2.cursor);
  await c.close();

  for (const t of ['m4', 'm5']) await say(s, 'general', t);
  const second = await attachAs(s, identity('alpha', { cursor: m2.cursor }), { token });
  assert.is(second.ready.cursor, m2.cursor);
  await second.c.message('m5');
  assert.equal(texts(second.c.events), ['m3', 'm4', 'm5']);
  const cursors = second.c.events.map((f) => Number(f.cursor));
  assert.equal(
    cursors,
    [...cursors].sort((a, b) => a - b),
  );
  const m5 = second.c.events[second.c.events.length - 1];
  second.c.ack(m5.cursor);
  await second.c.close();

  for (const t of ['m6', 'm7']) await say(s, 'general', t);
  await s.restart();
  await say(s, 'general', 'm8');
  const third = await attachAs(s, identity('alpha', { cursor: Number(m5.cursor) }), { token });
  await third.c.message('m8');
  await say(s, 'general', 'm9');
  await third.c.message('m9');
  assert.equal(texts(third.c.events), ['m6', 'm7', 'm8', 'm9']);
  await third.c.close();
});

resume('starts at the live head without a cursor', async ({ s }) => {
  await say(s, 'general', 'before');
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  await say(s, 'general', 'after');
  await c.message('after');
  assert.equal(texts(c.events), ['after']);
  await c.close();
});

resume.run();

// ---------------------------------------------------------------------------------------------

const hb = suite<{ s: AppServer; sse: SseClient }>('the attachment heartbeat');
hb.before(async (ctx) => {
  ctx.s = await startApp({
    config: { store: MEMORY, server: { heartbeat_interval_ms: 500, debug_events: true }, rooms: [{ id: 'general', members: ['alpha'] }] },
  });
  ctx.sse = await SseClient.open(ctx.s, { token: TOKENS.observer.value });
});
hb.after(async ({ s, sse }) => {
  sse.close();
  await s.dispose();
});

hb('keeps a client that answers PINGs', async ({ s }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  for (let i = 0; i < 5; i++) await c.next('PING', 3000);
  assert.is(c.closeInfo, undefined);
  await say(s, 'general', 'alive');
  await c.message('alive');
  await c.close();
});

hb('closes a silent client with read_timeout and says so in agent.disconnected', async ({ s, sse }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value, autoPong: false });
  const closed = await c.closed;
  assert.is(closed.code, 4000);
  assert.is(closed.reason, 'read_timeout');
  assert.ok(c.frames.items.some((f) => f.op === 'ERROR' && f.code === 'read_timeout'));
  const d = await sse.next((f) => f.event === 'agent.disconnected' && f.json.agent.reason === 'read_timeout');
  assert.is(d.json.agent.agent_id, 'alpha');
});

hb('keeps a client whose only sign of life is WebSocket pings or unsolicited pongs', async ({ s }) => {
  for (const control of ['ping', 'pong'] as const) {
    const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value, autoPong: false });
    const beat = setInterval(() => c.ws[control](), 200);
    try {
      // Five heartbeat intervals without an app frame: two silent ones would close it.
      await new Promise((r) => setTimeout(r, 2500));
      assert.is(c.closeInfo, undefined, control);
      await say(s, 'general', `alive by ${control}`);
      await c.message(`alive by ${control}`);
    } finally {
      clearInterval(beat);
    }
    await c.close();
  }
});

hb('closes a client that never sends IDENTIFY', async ({ s }) => {
  const c = await AttachClient.open(s, { token: TOKENS.alphaOnly.value, autoPong: false });
  assert.is((await c.closed).reason, 'read_timeout');
});

hb.run();

// ---------------------------------------------------------------------------------------------

const presence = suite<{ s: AppServer; sse: SseClient }>('presence events');
presence.before(async (ctx) => {
  ctx.s = await startApp({ config: { store: MEMORY, server: { debug_events: true }, rooms: [{ id: 'general', members: ['alpha'] }] } });
  ctx.sse = await SseClient.open(ctx.s, { token: TOKENS.observer.value });
});
presence.after(async ({ s, sse }) => {
  sse.close();
  await s.dispose();
});

presence('emits agent.connected at READY and agent.disconnected at close, with reasons in debug mode', async ({ s, sse }) => {
  const { c } = await attachAs(s, { network_id: NET, agent: { id: 'alpha', name: 'Alpha' } }, { token: TOKENS.alphaOnly.value });
  const up = await sse.nextOf('agent.connected');
  assert.equal(up.json.agent, {
    agent_id: 'alpha',
    network_id: NET,
    fqid: 'svc://testnet/agents/alpha',
    name: 'Alpha',
    reason: 'attachment_ready',
  });
  await c.close();
  const down = await sse.nextOf('agent.disconnected');
  assert.is(down.json.agent.reason, 'client_closed');
  assert.is(down.json.agent.agent_id, 'alpha');
});

presence('tells a client going away from one that closed', async ({ s, sse }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  await sse.nextOf('agent.connected');
  c.ws.close(1001, 'bye');
  await c.closed;
  assert.is((await sse.nextOf('agent.disconnected')).json.agent.reason, 'client_going_away');
});

presence('emits nothing for a session rejected before READY', async ({ s, sse }) => {
  const count = () => sse.all.filter((f) => f.event === 'agent.connected' || f.event === 'agent.disconnected').length;
  const before = count();
  await rejectedIdentify(s, { network_id: 'nope', agent: { id: 'alpha' } }, { token: TOKENS.alphaOnly.value });
  await say(s, 'general', 'marker');
  await sse.message('marker');
  assert.is(count(), before);
});

presence('disconnects an attached agent that is removed', async ({ s, sse }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  assert.is((await s.req('DELETE', '/v1/agents/alpha', { token: TOKENS.admin.value })).status, 200);
  const e = await c.next('ERROR');
  assert.is(e.code, 'agent_removed');
  await c.closed;
  assert.is((await sse.nextOf('agent.disconnected')).json.agent.reason, 'event_stream_closed');
});

presence.run();

// ---------------------------------------------------------------------------------------------

const wakes = suite<{ s: AppServer; sse: SseClient; c: AttachClient }>('targeted wakes');
wakes.before(async (ctx) => {
  ctx.s = await startApp({ config: { store: MEMORY, rooms: [{ id: 'general', members: ['alpha', 'beta'] }] } });
  ctx.sse = await SseClient.open(ctx.s, { token: TOKENS.observer.value });
});
wakes.after(async ({ s, sse }) => {
  sse.close();
  await s.dispose();
});

const wakeFor = (sse: SseClient, type: string, messageId: string) =>
  sse.next((f) => f.event === type && f.json.agent.message_id === messageId, 5000, `${type} for ${messageId}`);

wakes('a mention then its ACK emits agent.wake.delivered with reason mention', async ({ s, sse }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  const connected = await sse.nextOf('agent.connected');
  assert.is(connected.json.agent.reason, undefined, 'lifecycle reasons only with debug_events');
  const sent = await say(s, 'general', 'hey @alpha, look');
  const ev = await c.message('hey @alpha, look');
  c.ack(ev.cursor);
  const w = await wakeFor(sse, 'agent.wake.delivered', sent.message_id);
  assert.equal(w.json.agent, {
    agent_id: 'alpha',
    network_id: NET,
    fqid: 'svc://testnet/agents/alpha',
    message_id: sent.message_id,
    reason: 'mention',
    target: { kind: 'room', room_id: 'general' },
  });
  await c.close();
});

wakes('a DM then its ACK emits agent.wake.delivered with reason dm', async ({ s, sse }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'dm', participant_ids: ['alpha'] }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text: 'psst' }] },
    TOKENS.admin.value,
  );
  assert.is(r.status, 200, r.text);
  const ev = await c.message('psst');
  assert.is(ev.event.message.target.kind, 'dm');
  c.ack(ev.cursor);
  const w = await wakeFor(sse, 'agent.wake.delivered', r.body.message_id);
  assert.is(w.json.agent.reason, 'dm');
  assert.is(w.json.agent.target.kind, 'dm');
  await c.close();
});

wakes('a disconnect before ACK emits agent.wake.failed with an error', async ({ s, sse }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  const sent = await say(s, 'general', '@alpha urgent');
  await c.message('@alpha urgent');
  await c.close();
  const w = await wakeFor(sse, 'agent.wake.failed', sent.message_id);
  assert.is(w.json.agent.reason, 'mention');
  assert.type(w.json.agent.error, 'string');
  assert.ok(w.json.agent.error.length > 0);
  assert.not.ok(sse.all.some((f) => f.event === 'agent.wake.delivered' && f.json.agent.message_id === sent.message_id));
});

wakes('passive room messages emit neither wake event', async ({ s, sse }) => {
  const { c } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  const passive = await say(s, 'general', 'just chatting');
  const ev = await c.message('just chatting');
  c.ack(ev.cursor);
  const marker = await say(s, 'general', '@alpha marker');
  c.ack((await c.message('@alpha marker')).cursor);
  await wakeFor(sse, 'agent.wake.delivered', marker.message_id);
  await c.close();
  await sse.nextOf('agent.disconnected');
  assert.not.ok(sse.all.some((f) => f.event?.startsWith('agent.wake') && f.json.agent.message_id === passive.message_id));
});

wakes.run();

// ---------------------------------------------------------------------------------------------

const slow = suite<{ s: AppServer }>('a slow attachment');
slow.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', members: ['alpha', 'beta'] }] } });
});
slow.after(async ({ s }) => s.dispose());

slow('is moved to store catch-up and counted, while the others keep receiving; it loses nothing', async ({ s }) => {
  const { c: lagging } = await attachAs(s, identity('alpha'), { token: TOKENS.alphaOnly.value });
  const { c: fast } = await attachAs(s, identity('beta'), { token: TOKENS.admin.value });
  lagging.ws.pause();
  const big = 'x'.repeat(300 * 1024);
  const sent: string[] = [];
  for (let i = 0; i < 200; i++) {
    const text = `bulk-${i} ${big}`;
    sent.push(text);
    await say(s, 'general', text);
    if (i >= 40 && i % 10 === 0 && ((await metricValue(s, TOKENS.admin.value, 'svc_broker_drops_total{surface="attach"}')) ?? 0) >= 1)
      break;
  }
  assert.ok(((await metricValue(s, TOKENS.admin.value, 'svc_broker_drops_total{surface="attach"}')) ?? 0) >= 1, 'the drop is counted');
  await fast.message(sent[sent.length - 1]!, 20000);
  assert.equal(texts(fast.events), sent);
  lagging.ws.resume();
  await lagging.message(sent[sent.length - 1]!, 20000);
  assert.equal(texts(lagging.events), sent);
  await lagging.close();
  await fast.close();
});

slow.run();
