// The inbound A2A gateway against a real server (the app in this process, on a sqlite file store) with `@a2a-js/sdk`'s own
// client: the cards, a message to an agent that `svc agent run` answers streamed to completed
// with its reply, read back with GetTask after a restart (both bindings), CancelTask, and the
// refusals of callers without a token, without the a2a scope, or with a body the edge refuses.

import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Role, TaskState, type StreamResponse } from '@a2a-js/sdk';
import { Webhook } from 'standardwebhooks';
import { startAgentRun, writeBot, type AgentRunProc } from '../helpers/agent-run.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { attachAs } from '../helpers/live.js';
import { eventually, TOKENS } from '../helpers/server.js';
import { grantFor } from '../oauth/headless.js';

interface Ctx {
  s: AppServer;
  dir: string;
  ada: string;
  bob: string;
  run?: AgentRunProc;
}

const t = suite<Ctx>('the inbound A2A gateway');

t.before(async (ctx) => {
  ctx.s = await startApp({
    config: { auth: { agent_registration: 'open' }, server: { a2a: { agents: ['ada', 'cy'], push_allow_private_network: true } } },
  });
  const reg = async (id: string) => {
    const r = await ctx.s.post('/v1/agents/register', { requested_agent_id: id, name: id.toUpperCase() });
    assert.is(r.status, 200, r.text);
    return r.body.agent_token as string;
  };
  ctx.ada = await reg('ada');
  ctx.bob = await reg('bob');
  await reg('cy');
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-a2a-'));
  ctx.run = await startAgentRun(
    ['--url', ctx.s.url, '--state-dir', path.join(ctx.dir, 'state'), '--', process.execPath, writeBot(ctx.dir)],
    { SVC_TOKEN: ctx.ada, RUNS_FILE: path.join(ctx.dir, 'runs'), REPLY_TEXT: 'pong from ada' },
    ctx.dir,
  );
});
t.after(async (ctx) => {
  await ctx.run?.stop();
  await ctx.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** A fetch that sends `token` as the bearer credential (the SDK's transports take a fetch). */
const withToken =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

/** The SDK's client of agent `id`, built from its card, on the binding named. */
function clientOf(s: AppServer, id: string, token: string, binding: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC'): Promise<Client> {
  const fetchImpl = withToken(token);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
    }),
  );
  // The card is resolved against the base URL: its trailing slash keeps the agent's path.
  return factory.createFromUrl(`${s.url}/v1/a2a/agents/${id}/`);
}

const message = (text: string, contextId = '') => ({
  tenant: '',
  message: {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text' as const, value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

const textOf = (m: { parts: { content?: { $case: string; value?: unknown } }[] } | undefined) =>
  (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

let completedTask = '';

t("the network's card lists the agents that opted in as skills; each agent's card names its base URL for both bindings", async ({ s }) => {
  const net = await fetch(`${s.url}/.well-known/agent-card.json`);
  assert.is(net.status, 200);
  const card = (await net.json()) as { name: string; skills: { id: string; name: string }[] };
  assert.is(card.name, 'Test Net');
  assert.equal(
    card.skills.map((k) => [k.id, k.name]),
    [
      ['ada', 'ADA'],
      ['cy', 'CY'],
    ],
    'bob did not opt in',
  );
  const ada = (await (await fetch(`${s.url}/v1/a2a/agents/ada/.well-known/agent-card.json`)).json()) as {
    supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    capabilities: { streaming: boolean };
  };
  assert.equal(
    ada.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
    [
      [`${s.url}/v1/a2a/agents/ada`, 'JSONRPC', '1.0'],
      [`${s.url}/v1/a2a/agents/ada`, 'HTTP+JSON', '1.0'],
    ],
  );
  assert.is(ada.capabilities.streaming, true);
  assert.is(
    (await fetch(`${s.url}/v1/a2a/agents/bob/.well-known/agent-card.json`)).status,
    404,
    'an agent that did not opt in has no card',
  );

  // The OpenAPI document names the gateway's routes, the colon of `message:send` kept literal.
  const doc = (await s.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: { name: string }[] }>> };
  const send = doc.paths['/v1/a2a/agents/{agent_id}/message:send']?.post;
  assert.ok(
    send,
    Object.keys(doc.paths)
      .filter((p) => p.includes('a2a'))
      .join(', '),
  );
  assert.equal(
    send!.parameters?.map((x) => x.name),
    ['agent_id'],
  );
  assert.ok(doc.paths['/.well-known/agent-card.json']?.get);
});

t('a streamed message becomes a DM that svc agent run answers: submitted, working, completed with the reply', async ({ s, bob }) => {
  const client = await clientOf(s, 'ada', bob);
  const states: TaskState[] = [];
  let last: StreamResponse | undefined;
  const seen: StreamResponse[] = [];
  for await (const ev of client.sendMessageStream(message('ping?'))) {
    seen.push(ev);
    last = ev;
    const p = ev.payload;
    if (p?.$case === 'task') states.push(p.value.status!.state);
    if (p?.$case === 'statusUpdate') states.push(p.value.status!.state);
  }
  assert.equal(
    states,
    [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED],
    JSON.stringify(seen),
  );
  const done = last?.payload?.$case === 'statusUpdate' ? last.payload.value : undefined;
  assert.ok(done, 'the stream ends with the status update');
  assert.is(textOf(done!.status?.message), 'pong from ada');
  assert.is(done!.status?.message?.role, Role.ROLE_AGENT);
  completedTask = done!.taskId;

  // The message is svc's: a DM from bob to ada, answered there.
  const dms = (await s.get('/v1/dms', bob)).body.dms as { id: string; participant_ids: string[] }[];
  assert.equal(dms[0]!.participant_ids, ['testnet:ada', 'testnet:bob']);
  const msgs = (await s.get(`/v1/dms/${dms[0]!.id}/messages`, bob)).body.messages as { from: { id: string }; parts: { text: string }[] }[];
  assert.equal(
    msgs.map((m) => [m.from.id, m.parts[0]!.text]),
    [
      ['bob', 'ping?'],
      ['ada', 'pong from ada'],
    ],
  );
});

t('GetTask reads the completed task back after a restart, on both bindings; ListTasks lists it', async ({ s, bob }) => {
  await s.restart();
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const client = await clientOf(s, 'ada', bob, binding);
    const task = await client.getTask({ tenant: '', id: completedTask });
    assert.is(task.status?.state, TaskState.TASK_STATE_COMPLETED, binding);
    assert.is(textOf(task.status?.message), 'pong from ada', binding);
    assert.is(textOf(task.history[0]), 'ping?', binding);
    const list = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    assert.equal(
      list.tasks.map((x) => x.id),
      [completedTask],
      binding,
    );
  }
  // Another caller's task, or the task through another agent's URL, is not found.
  const stranger = (await s.post('/v1/agents/register', { requested_agent_id: 'dan' })).body.agent_token as string;
  for (const [who, agent] of [
    [stranger, 'ada'],
    [bob, 'cy'],
  ] as const) {
    const r = await s.req('POST', `/v1/a2a/agents/${agent}`, {
      token: who,
      headers: { 'a2a-version': '1.0' },
      body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: completedTask } },
    });
    assert.is(r.status, 200, r.text);
    assert.is(r.body.error?.code, -32001, r.text);
  }
});

t(
  'CancelTask cancels a task whose agent has not answered; a subscriber and its push config get the change, signed with its token',
  async ({ s, bob }) => {
    const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/a2a-push`;
    try {
      for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
        const client = await clientOf(s, 'cy', bob, binding);
        const sent = await client.sendMessage({
          ...message('are you there?'),
          configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
        });
        assert.ok('id' in sent && 'status' in sent, binding);
        const id = (sent as { id: string }).id;
        assert.is((sent as { status: { state: TaskState } }).status.state, TaskState.TASK_STATE_SUBMITTED, binding);
        const token = `push-secret-${binding}`;
        const config = await client.createTaskPushNotificationConfig({
          tenant: '',
          id: '',
          taskId: id,
          url: hook,
          token,
          authentication: undefined,
        });
        assert.is(config.url, hook, binding);
        // A subscriber sees the task, then its cancellation.
        const watched: StreamResponse[] = [];
        const subscribed = (async () => {
          for await (const ev of client.resubscribeTask({ tenant: '', id })) watched.push(ev);
        })();
        await eventually(() => watched.length > 0, 10_000, 'the subscription');
        const canceled = await client.cancelTask({ tenant: '', id, metadata: {} });
        await subscribed;
        assert.equal(
          watched.map((e) => e.payload?.$case),
          ['task', 'statusUpdate'],
          binding,
        );
        const last = watched[1]!.payload;
        assert.is(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined, TaskState.TASK_STATE_CANCELED, binding);
        assert.is(canceled.status?.state, TaskState.TASK_STATE_CANCELED, binding);
        assert.is((await client.getTask({ tenant: '', id })).status?.state, TaskState.TASK_STATE_CANCELED, binding);

        const note = (await eventually(
          () => got.find((g) => g.body.includes(id) && g.body.includes('TASK_STATE_CANCELED')),
          15_000,
          'the push',
        ))!;
        assert.is(note.headers['x-a2a-notification-token'], token);
        // Standard Webhooks: the receiver checks the signature with the token as the secret.
        const verified = new Webhook(new Uint8Array(Buffer.from(token, 'utf8')), { format: 'raw' }).verify(note.body, {
          'webhook-id': String(note.headers['webhook-id']),
          'webhook-timestamp': String(note.headers['webhook-timestamp']),
          'webhook-signature': String(note.headers['webhook-signature']),
        });
        assert.ok(verified, binding);
      }
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  },
);

t(
  'callers without a token, without the a2a scope, or acting as no single agent are refused; a bad body gets the binding error',
  async ({ s, bob }) => {
    const rpc = (token?: string, body: unknown = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message('x') }) =>
      s.req('POST', '/v1/a2a/agents/ada', { ...(token ? { token } : {}), headers: { 'a2a-version': '1.0' }, body });
    assert.is((await rpc()).status, 401, 'no token');
    assert.is((await rpc(TOKENS.observer.value)).status, 403, 'a token without write or a2a');
    const admin = await rpc(TOKENS.admin.value);
    assert.is(admin.status, 403, 'a write token that may act as any agent speaks as none');
    assert.match(admin.body.error, /sent as an agent/);
    assert.is(
      (
        await rpc(bob, {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ raw: 'AAAA' }] } },
        })
      ).body.error?.code,
      -32602,
      'raw bytes are refused',
    );
    const broken = await s.req('POST', '/v1/a2a/agents/ada', {
      token: bob,
      raw: '{"jsonrpc":',
      headers: { 'content-type': 'application/json' },
    });
    assert.is(broken.status, 400);
    assert.is(broken.body.error.code, -32700);
    assert.is((await rpc(bob, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } })).body.error?.code, -32001);

    // An OAuth token of the existing provider: without the a2a scope it is refused (403).
    const grant = await grantFor(s.url, 'bob', TOKENS.admin.value);
    assert.is((await rpc(grant.access_token)).status, 403, 'an OAuth token granted mcp only');
    // One that asked for a2a too acts as its agent there.
    const both = await grantFor(s.url, 'bob', TOKENS.admin.value, { scope: 'mcp a2a' });
    const read = await rpc(both.access_token, { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: completedTask } });
    assert.is(read.status, 200, read.text);
    assert.is(read.body.result?.status?.state, 'TASK_STATE_COMPLETED', read.text);
  },
);

t.run();

const gaveUp = suite('an A2A task whose wake is given up on');

gaveUp('fails, saying why, when the attached agent never acknowledges its wake', async () => {
  const s = await startApp({
    config: {
      store: { backend: 'memory' },
      auth: { agent_registration: 'open' },
      server: { a2a: { agents: ['dora'] }, delivery: { redeliver_after_ms: 200, max_offers: 1, warn_after_ms: 60_000 } },
    },
  });
  try {
    const reg = async (id: string) => (await s.post('/v1/agents/register', { requested_agent_id: id })).body.agent_token as string;
    const dora = await reg('dora');
    const bob = await reg('bob');
    // Attached, never acknowledging: the wake is offered once, then given up on.
    const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'dora' } }, { token: dora });
    try {
      const client = await clientOf(s, 'dora', bob);
      const r = await client.sendMessage(message('hello?'));
      assert.ok('status' in r);
      const task = r as { status?: { state: TaskState; message?: { parts: { content?: { $case: string; value?: unknown } }[] } } };
      assert.is(task.status?.state, TaskState.TASK_STATE_FAILED);
      assert.match(textOf(task.status?.message), /^the agent's wake failed: not acknowledged: sent once/);
    } finally {
      await c.close();
    }
  } finally {
    await s.dispose();
  }
});

gaveUp.run();

const inThread = suite('an A2A message whose context id names a thread');

inThread("is a reply in that thread mentioning the agent; the agent's next message there completes the task", async () => {
  const s = await startApp({
    config: {
      store: { backend: 'memory' },
      auth: { agent_registration: 'open' },
      server: { a2a: { agents: ['eve'] } },
    },
  });
  try {
    const reg = async (id: string) => (await s.post('/v1/agents/register', { requested_agent_id: id })).body.agent_token as string;
    const eve = await reg('eve');
    const bob = await reg('bob');
    // Made after the agents claimed their ids (a declared member's id is the operator's).
    assert.is((await s.post('/v1/rooms', { id: 'lab', name: 'Lab', members: ['bob', 'eve'] }, TOKENS.admin.value)).status, 200);
    const client = await clientOf(s, 'eve', bob, 'HTTP+JSON');
    const events: StreamResponse[] = [];
    const streamed = (async () => {
      for await (const ev of client.sendMessageStream(message('@eve can you look?', 'thread/lab/t-1'))) events.push(ev);
    })();
    const asked = await eventually(
      async () =>
        (
          (await s.get('/v1/threads/t-1/messages', bob)).body?.messages as
            | { id: string; from: { id: string }; mentions: string[] }[]
            | undefined
        )?.[0],
      10_000,
      'the thread message',
    );
    assert.is(asked!.from.id, 'bob');
    assert.equal(asked!.mentions, ['svc://testnet/agents/eve']);
    // Another agent's message there is not the answer; eve's is.
    const reply = (text: string, token: string, id: string) =>
      s.post(
        '/v1/messages',
        { target: { kind: 'thread', room_id: 'lab', thread_id: 't-1' }, from: { type: 'agent', id }, parts: [{ kind: 'text', text }] },
        token,
      );
    assert.is((await reply('me too', bob, 'bob')).status, 200);
    assert.is((await reply('looked: all good', eve, 'eve')).status, 200);
    await streamed;
    const last = events.at(-1)?.payload;
    assert.is(last?.$case, 'statusUpdate');
    const status = last?.$case === 'statusUpdate' ? last.value.status : undefined;
    assert.is(status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.is(textOf(status?.message), 'looked: all good');
    assert.is(events[0]?.payload?.$case === 'task' ? events[0].payload.value.contextId : '', 'thread/lab/t-1');
  } finally {
    await s.dispose();
  }
});

inThread.run();
