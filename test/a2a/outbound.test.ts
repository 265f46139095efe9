// Remote A2A agents as room members (#42 part 3), against a real A2A server written with
// @a2a-js/sdk (outbound-agent.ts): a mention in a room and a DM become SendMessage calls whose
// answer (status message and artifact: text, data, file) is posted back as the agent's message in
// the same conversation, follow-ups stay in one A2A context, and an agent whose card stops
// answering is marked down (warning, doctor, metric, presence) and senders are told at once.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type AppServer } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from './outbound-agent.js';

const admin = TOKENS.admin.value;
const alpha = TOKENS.alphaOnly.value;
const TOKEN = 'tok-echo-remote-0123456789';
const ENV = { ECHO_TOKEN: TOKEN };

interface Ctx {
  agent: TestAgent;
  s: AppServer;
}

let shared: Promise<Ctx> | undefined;
/** One remote agent and one server for the file; the last suite stops both. */
const setup = () =>
  (shared ??= (async () => {
    const agent = await startTestAgent();
    const s = await startApp({
      env: ENV,
      config: {
        rooms: [{ id: 'lab', members: ['alpha'] }],
        a2a_agents: [
          // Short checks so the down path is quick; down after two failures in a row.
          {
            id: 'echo',
            name: 'Echo',
            card_url: agent.cardUrl,
            allow_private_network: true,
            auth_env: 'ECHO_TOKEN',
            rooms: ['lab'],
            check_interval_ms: 100,
            down_after: 2,
            timeout_ms: 5000,
          },
        ],
      },
    });
    return { agent, s };
  })());

const history = async (s: AppServer, path: string) => {
  const r = await s.get(path, admin);
  assert.is(r.status, 200, r.text);
  return r.body.messages as Json[];
};

/** Waits for the reply of `echo` to message `id` (the message after it from echo) in `path`. */
const replyTo = (s: AppServer, path: string, id: string) =>
  eventually(
    async () => {
      const all = await history(s, path);
      const i = all.findIndex((m) => m.id === id);
      return i >= 0 ? all.slice(i + 1).find((m) => m.from.id === 'echo') : undefined;
    },
    10_000,
    `echo's reply to ${id} in ${path}`,
  );

const send = async (s: AppServer, body: Json) => {
  const r = await s.post('/v1/messages', body, alpha);
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
};

const up = suite('a remote A2A agent answers in rooms, threads and DMs');

up('it is a member of its rooms, as an agent of kind a2a, and its card is fetched with its token', async () => {
  const { agent, s } = await setup();
  const a = (await eventually(async () => {
    const r = await s.get('/v1/agents/echo', admin);
    return r.status === 200 ? r : undefined;
  }, 5_000))!;
  assert.is(a.body.kind, 'a2a');
  assert.is(a.body.name, 'Echo');
  // Joining happens as the feature starts, beside the server's own start.
  await eventually(async () => (await s.get('/v1/agents/echo', admin)).body.rooms?.includes('lab'), 5_000, 'echo in lab');
  await eventually(() => agent.cardFetches() > 0, 5_000, 'the card fetched');
  assert.ok(
    agent.auth.every((h) => h === `Bearer ${TOKEN}`),
    'every request carries the bearer token',
  );
  const alphaView = await s.get('/v1/agents/alpha', admin);
  assert.is(alphaView.body.kind, undefined, 'agents that connect themselves have no kind');
});

up('a mention in a room becomes a SendMessage, and the reply with its artifact is posted as the agent, mentioning the sender', async () => {
  const { agent, s } = await setup();
  const id = await send(s, roomMessage('lab', 'alpha', '@echo summarize the logs'));
  const reply = await replyTo(s, '/v1/rooms/lab/messages', id);
  const got = agent.received.find((m) => m.messageId === id)!;
  assert.ok(got, 'the agent received the message under its svc id');
  assert.is(got.parts[0]!.content?.$case, 'text');
  assert.match(String(got.parts[0]!.content?.value), /summarize the logs/);
  assert.is(got.metadata?.svc?.message_id, id);

  assert.equal(reply.from.id, 'echo');
  assert.equal(reply.target, { kind: 'room', room_id: 'lab' });
  assert.ok(reply.mentions.includes('svc://testnet/agents/alpha'), 'the sender is mentioned (and so woken)');
  const kinds = reply.parts.map((p: Json) => p.kind);
  assert.equal(kinds, ['text', 'text', 'data', 'file']);
  assert.is(reply.parts[0].text, 'echo: @echo summarize the logs');
  assert.is(reply.parts[1].text, 'report on @echo summarize the logs');
  assert.equal(reply.parts[2].data, { turns: 1 });
  assert.is(reply.parts[3].name, 'report.csv');
  assert.is(reply.parts[3].content_type, 'text/csv');
  const file = await s.get(`/v1/files/${reply.parts[3].file_id}`, admin);
  assert.is(file.status, 200);
  assert.is(file.text, 'col1,col2\n1,2\n');
  const arts = await s.get('/v1/artifacts?room_id=lab', admin);
  assert.ok(
    arts.body.artifacts.some((x: Json) => x.message_id === reply.id && x.kind === 'file'),
    'the file is one of the room artifacts',
  );
});

up('a follow-up in the room stays in one A2A context; a thread has its own', async () => {
  const { agent, s } = await setup();
  const first = agent.received.find((m) => String(m.parts[0]?.content?.value).includes('summarize'))!;
  const id = await send(s, roomMessage('lab', 'alpha', '@echo and the errors?'));
  const reply = await replyTo(s, '/v1/rooms/lab/messages', id);
  const again = agent.received.find((m) => m.messageId === id)!;
  assert.is(again.contextId, first.contextId, 'the same context as the first mention in the room');
  assert.equal(reply.parts[2].data, { turns: 2 }, 'the agent counted two turns in the context');

  const t = await send(s, {
    target: { kind: 'thread', room_id: 'lab', thread_id: 'th-a2a', parent_message_id: id },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: '@echo in a thread' }],
  });
  const inThread = await replyTo(s, '/v1/threads/th-a2a/messages', t);
  assert.is(inThread.target.kind, 'thread');
  assert.is(inThread.target.thread_id, 'th-a2a');
  const threaded = agent.received.find((m) => m.messageId === t)!;
  assert.is.not(threaded.contextId, first.contextId, 'a thread is a conversation of its own');
});

up('a DM to the agent is answered in the DM', async () => {
  const { agent, s } = await setup();
  const r = await s.post(
    '/v1/messages',
    {
      target: { kind: 'dm', participant_ids: ['testnet:echo'] },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: 'hello privately' }],
    },
    alpha,
  );
  assert.is(r.status, 200, r.text);
  const dm = await eventually(
    async () => (await s.get('/v1/dms', admin)).body.dms.find((d: Json) => d.participant_ids.includes('testnet:echo')),
    5_000,
  );
  const reply = await replyTo(s, `/v1/dms/${dm.id}/messages`, r.body.message_id);
  assert.is(reply.parts[0].text, 'echo: hello privately');
  assert.equal(reply.mentions, [], 'a DM reply needs no mention to wake the sender');
  assert.ok(agent.received.some((m) => m.messageId === r.body.message_id));
});

const down = suite('a remote A2A agent whose card stops answering');

down.after(async () => {
  const { agent, s } = await setup();
  await s.dispose();
  await agent.close();
});

down('is marked down: a warning in GET /v1/network and svc doctor, the metric, and agent.disconnected', async () => {
  const { agent, s } = await setup();
  const metricUp = async () => /svc_a2a_agent_up\{agent="echo"\} (\d)/.exec((await s.get('/metrics', admin)).text)?.[1];
  assert.is(await metricUp(), '1');
  await agent.close();
  const w = await eventually(
    async () => ((await s.get('/v1/network', admin)).body.warnings ?? []).find((x: Json) => x.code === 'a2a_agent_down'),
    10_000,
    'the down warning',
  );
  assert.match(w.message, /A2A agent echo is down/);
  assert.is(await metricUp(), '0');
  // The stored presence events, which the console's agent list and every event stream follow.
  const events = (await s.app.ctx.store.eventsAfter(0, 100_000)).map((e) => e.event);
  const presence = events.filter((e) => e.agent?.agent_id === 'echo').map((e) => e.type);
  assert.equal(presence.slice(-2), ['agent.connected', 'agent.disconnected']);
  const doctor = await cli(['doctor', '--config', s.configFile, '--url', s.url, '--token', admin], { env: ENV });
  assert.match(doctor.stdout + doctor.stderr, /A2A agent echo is down/);
});

down('a mention of a down agent is answered at once with a notice to the sender, without calling it', async () => {
  const { agent, s } = await setup();
  const before = agent.received.length;
  const id = await send(s, roomMessage('lab', 'alpha', '@echo are you there?'));
  const notice = await replyTo(s, '/v1/rooms/lab/messages', id);
  assert.match(notice.parts[0].text, /echo is unavailable \(A2A agent down/);
  assert.is(notice.parts[1].data.a2a.status, 'down');
  assert.is(notice.parts[1].data.a2a.message_id, id);
  assert.ok(notice.mentions.includes('svc://testnet/agents/alpha'));
  assert.is(agent.received.length, before, 'the agent was not called');
});

up.run();
down.run();
