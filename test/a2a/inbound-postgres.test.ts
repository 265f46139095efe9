// The inbound A2A gateway on Postgres with two instances on one schema: a task streamed from one
// instance completes when the agent answers through the other (the task follows svc's events, which
// every instance sees), its data part becomes an artifact, and the other instance reads the task
// back with GetTask and ListTasks (tasks live in the store).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Role, TaskState, type StreamResponse } from '@a2a-js/sdk';
import type { AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { eventually } from '../helpers/server.js';

interface Ctx {
  pgs: PgSchema;
  a: AppServer;
  b: AppServer;
}

const t = suite<Ctx>('the inbound A2A gateway on Postgres, two instances');
const CONFIG = { auth: { agent_registration: 'open' }, server: { a2a: { agents: ['ada'] } } };

t.before(async (ctx) => {
  ctx.pgs = await freshSchema();
  ctx.a = await startPgApp(ctx.pgs, CONFIG);
  ctx.b = await startPgApp(ctx.pgs, CONFIG);
});
t.after(async ({ a, b, pgs }) => {
  await a?.dispose();
  await b?.dispose();
  await pgs?.drop();
});

function clientOf(url: string, token: string, binding: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
    }),
  );
  return factory.createFromUrl(`${url}/v1/a2a/agents/ada/`);
}

t('a task streamed from one instance completes with the reply sent through the other; the other reads it back', async ({ a, b }) => {
  const reg = async (id: string) => (await a.post('/v1/agents/register', { requested_agent_id: id })).body.agent_token as string;
  const ada = await reg('ada');
  const bob = await reg('bob');

  const onA = await clientOf(a.url, bob, 'HTTP+JSON');
  const events: StreamResponse[] = [];
  const streamed = (async () => {
    for await (const ev of onA.sendMessageStream({
      tenant: '',
      message: {
        messageId: 'm-pg-1',
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [{ content: { $case: 'text', value: 'the numbers, please' }, mediaType: 'text/plain', filename: '', metadata: undefined }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(ev);
  })();

  // The DM exists once the task is submitted; ada answers it through the other instance.
  const dm = await eventually(async () => ((await b.get('/v1/dms', ada)).body.dms as { id: string }[])[0], 10_000, 'the DM');
  const sent = await b.post(
    '/v1/messages',
    {
      target: { kind: 'dm', dm_id: dm.id },
      from: { type: 'agent', id: 'ada' },
      parts: [
        { kind: 'text', text: 'here they are' },
        { kind: 'data', data: { answer: 42 } },
      ],
    },
    ada,
  );
  assert.is(sent.status, 200, sent.text);
  await streamed;

  const states = events.flatMap((e) =>
    e.payload?.$case === 'task'
      ? [e.payload.value.status!.state]
      : e.payload?.$case === 'statusUpdate'
        ? [e.payload.value.status!.state]
        : [],
  );
  assert.equal(states, [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
  const artifacts = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value.artifact!] : []));
  assert.equal(
    artifacts.map((x) => x.parts[0]!.content),
    [{ $case: 'data', value: { answer: 42 } }],
  );
  const taskId = events[0]!.payload!.$case === 'task' ? events[0]!.payload!.value.id : '';

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const onB = await clientOf(b.url, bob, binding);
    const task = await onB.getTask({ tenant: '', id: taskId });
    assert.is(task.status?.state, TaskState.TASK_STATE_COMPLETED, binding);
    assert.equal(
      task.status?.message?.parts.map((p) => p.content),
      [{ $case: 'text', value: 'here they are' }],
      binding,
    );
    assert.equal(
      task.artifacts.map((x) => x.parts[0]!.content),
      [{ $case: 'data', value: { answer: 42 } }],
      binding,
    );
    const list = await onB.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    assert.equal(
      list.tasks.map((x) => x.id),
      [taskId],
      binding,
    );
  }
});

t.run();
