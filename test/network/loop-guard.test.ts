import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { SseClient } from '../helpers/live.js';
import { createApp } from '../../src/app.js';
import { defaultFeatures } from '../../src/features.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import type { Message } from '../../src/protocol/types.js';
import { tmpdir } from 'node:os';

// alpha is bound to the alpha-only token by its allowlist; beta is unregistered, so the admin
// token may speak as it.
const ALPHA = TOKENS.alphaOnly.value;
const BETA = TOKENS.admin.value;
const tokenOf = (who: string) => (who === 'alpha' ? ALPHA : BETA); // beta and gamma: admin

const t = suite<{ s: AppServer }>('the loop guard');
t.before(async (ctx) => {
  // The memory store: nothing here restarts the server or reads its files.
  ctx.s = await startApp({
    config: {
      store: { backend: 'memory' },
      rooms: [
        { id: 'general', members: ['alpha', 'beta'] },
        { id: 'tight', members: ['alpha', 'beta'], loop_guard: { max_consecutive: 3, pause_ms: 400 } },
        { id: 'lab', members: ['alpha', 'beta'], loop_guard: { enabled: false } },
        { id: 'hidden', members: ['beta', 'gamma'], visibility: 'private', loop_guard: { max_consecutive: 2 } },
      ],
    },
  });
});
t.after(async (ctx) => ctx.s.dispose());

async function say(s: AppServer, room: string, who: string, text = `${who} says hi`, extra: Record<string, Json> = {}) {
  return s.post('/v1/messages', roomMessage(room, who, text, extra), tokenOf(who));
}

async function human(s: AppServer, body: Record<string, Json>) {
  return s.post(
    '/v1/messages',
    { ...body, from: { type: 'human', id: 'ops-person' }, parts: [{ kind: 'text', text: 'stop it, you two' }] },
    TOKENS.admin.value,
  );
}

t('is on by default: two agents get 50 consecutive messages, the 51st is refused with 429 loop_detected', async ({ s }) => {
  for (let i = 0; i < 50; i++) {
    const r = await say(s, 'general', i % 2 ? 'beta' : 'alpha');
    assert.is(r.status, 200, `message ${i + 1}: ${r.text}`);
  }
  const r = await say(s, 'general', 'alpha');
  assert.is(r.status, 429, r.text);
  assert.is(r.body.code, 'loop_detected');
  assert.match(r.body.error, /alpha, beta exchanged 50 consecutive messages in room:general/);
  assert.ok(Number(r.headers.get('retry-after')) >= 1 && Number(r.headers.get('retry-after')) <= 61, String(r.headers.get('retry-after')));
  assert.type(r.body.request_id, 'string');
  // Every agent of the run is refused, not only the one that would have answered.
  assert.is((await say(s, 'general', 'beta')).body.code, 'loop_detected');
});

t('lets a human write and then lets the agents talk again', async ({ s }) => {
  const h = await human(s, { target: { kind: 'room', room_id: 'general' } });
  assert.is(h.status, 200, h.text);
  assert.is((await say(s, 'general', 'alpha')).status, 200);
  assert.is((await say(s, 'general', 'beta')).status, 200);
});

t('never trips for one agent posting many messages', async ({ s }) => {
  for (let i = 0; i < 60; i++) assert.is((await say(s, 'tight', 'alpha', `feed item ${i}`)).status, 200);
});

t('follows a room override and clears after the pause passes', async ({ s }) => {
  await say(s, 'tight', 'beta');
  await say(s, 'tight', 'alpha'); // turns: alpha(feed), beta, alpha = 3
  const r = await say(s, 'tight', 'beta');
  assert.is(r.status, 429, r.text);
  assert.is(r.body.code, 'loop_detected');
  assert.is(r.headers.get('retry-after'), '1');
  await new Promise((res) => setTimeout(res, 600));
  assert.is((await say(s, 'tight', 'beta')).status, 200);
});

t('applies the room override to threads of the room, per thread', async ({ s }) => {
  const thread = (who: string, id: string) =>
    say(s, 'tight', who, 'in thread', { target: { kind: 'thread', room_id: 'tight', thread_id: id } });
  const codes = [];
  for (const who of ['alpha', 'beta', 'alpha', 'beta']) codes.push((await thread(who, 'th-1')).status);
  assert.equal(codes, [200, 200, 200, 429]);
  assert.is((await thread('beta', 'th-2')).status, 200);
});

t('is off in a room that disables it', async ({ s }) => {
  for (let i = 0; i < 80; i++) assert.is((await say(s, 'lab', i % 2 ? 'beta' : 'alpha')).status, 200);
});

t('guards DMs with the network settings and answers a retry of an accepted message as before', async ({ s }) => {
  const dm = (who: string, id?: string) =>
    s.post(
      '/v1/messages',
      {
        ...(id ? { id } : {}),
        target: { kind: 'dm', participant_ids: [who === 'alpha' ? 'beta' : 'alpha'] },
        from: { type: 'agent', id: who },
        parts: [{ kind: 'text', text: 'ping' }],
      },
      tokenOf(who),
    );
  for (let i = 0; i < 50; i++) assert.is((await dm(i % 2 ? 'beta' : 'alpha', `dm-${i}`)).status, 200);
  assert.is((await dm('alpha')).body.code, 'loop_detected');
  // An idempotent retry creates nothing, so it is not part of the loop.
  const retry = await dm('beta', 'dm-49');
  assert.is(retry.status, 200, retry.text);
});

t('tells operators with a conversation.loop_guard event that only those who see the conversation receive', async ({ s }) => {
  const ops = await SseClient.open(s, { token: TOKENS.observer.value });
  const alphaView = await SseClient.open(s, { token: ALPHA });
  try {
    for (const who of ['beta', 'gamma']) assert.is((await say(s, 'hidden', who)).status, 200);
    const refused = await say(s, 'hidden', 'beta');
    assert.is(refused.body.code, 'loop_detected');
    const e = await ops.nextOf('conversation.loop_guard');
    assert.is(e.json.type, 'conversation.loop_guard');
    assert.equal(e.json.agent.target, { kind: 'room', room_id: 'hidden' });
    assert.is(e.json.agent.reason, 'loop_guard');
    assert.is(e.json.agent.agent_id, 'beta');
    assert.is(e.json.room_id, 'hidden');
    assert.match(e.json.agent.error, /exchanged 2 consecutive messages in room:hidden/);
    // Once per run: a second refusal tells nobody again.
    assert.is((await say(s, 'hidden', 'gamma')).body.code, 'loop_detected');
    await say(s, 'general', 'alpha', 'marker after the loop');
    await alphaView.message('marker after the loop');
    await ops.message('marker after the loop');
    assert.is(ops.all.filter((f) => f.event === 'conversation.loop_guard').length, 1);
    // alpha's token cannot see the private room, so it hears nothing of its loop.
    assert.not.ok(alphaView.all.some((f) => f.event === 'conversation.loop_guard'));
  } finally {
    ops.close();
    alphaView.close();
  }
});

t('tells operators in the log, once per run, without a token', async ({ s }) => {
  const lines = s
    .output()
    .split('\n')
    .filter((l) => l.includes('loop guard tripped'));
  assert.is(lines.length, 5, lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('conversation=room:general')));
  for (const tok of Object.values(TOKENS)) assert.not.ok(s.output().includes(tok.value));
});

t.run();

// ---- relayed messages -------------------------------------------------------------------------------

const relayed = suite('relayed messages and the loop guard');

relayed('relayed messages count toward a run but are never refused; the local agent answering them is', async () => {
  const loaded = parseConfig(
    { network: { id: 'home' }, store: { backend: 'memory' }, auth: { mode: 'none' }, server: { loop_guard: { max_consecutive: 3 } } },
    { baseDir: tmpdir(), env: {} },
  );
  const app = await createApp(loaded, { log: silentLogger, features: defaultFeatures });
  try {
    const guard = app.ctx.extensions.send.find((h) => h.check && h.stored);
    assert.ok(guard);
    const checkLoop = guard!.check!;
    const recordLoop = guard!.stored!;
    const msg = (id: string, from: string, net: string, origin?: boolean): Message => ({
      id,
      network_id: 'home',
      ...(origin ? { origin: { network_id: net, message_id: id } } : {}),
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: from, network_id: net, fqid: `svc://${net}/agents/${from}` },
      parts: [{ kind: 'text', text: 'x' }],
      mentions: [],
      created_at: new Date().toISOString(),
    });
    // Two remote agents alternate far past the limit: each relayed message is accepted.
    for (let i = 0; i < 6; i++) {
      const m = msg(`r${i}`, i % 2 ? 'bob' : 'carol', 'away', true);
      checkLoop('room:general', m);
      recordLoop('room:general', m);
    }
    // A local agent joining that run is refused with the stable code.
    assert.throws(
      () => checkLoop('room:general', msg('l1', 'alpha', 'home')),
      (err: { code?: string }) => err.code === 'loop_detected',
    );
  } finally {
    await app.close();
  }
});

relayed.run();
