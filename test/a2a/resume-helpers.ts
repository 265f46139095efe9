// What the tests of resumed A2A tasks share (inbound-resume*.test.ts): the SDK's client of an
// agent, a message submitted without waiting, and the agent's reply in its DM.

import * as assert from 'uvu/assert';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Role, type Task, TaskState } from '@a2a-js/sdk';
import type { AppServer } from '../helpers/app.js';

/** The SDK's client of agent `id` on server `url`, sending `token`. */
export function clientOf(url: string, id: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: ['JSONRPC'],
    }),
  );
  return factory.createFromUrl(`${url}/v1/a2a/agents/${id}/`);
}

/** Sends `text` and answers the submitted task at once (the agent is not attached). */
export async function submit(client: Client, text: string): Promise<Task> {
  const sent = await client.sendMessage({
    tenant: '',
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
    metadata: undefined,
  });
  assert.ok('id' in sent && 'status' in sent);
  const task = sent as Task;
  assert.is(task.status?.state, TaskState.TASK_STATE_SUBMITTED);
  return task;
}

export const textOf = (m: { parts: { content?: { $case: string; value?: unknown } }[] } | undefined) =>
  (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

/** Posts `text` as agent `from` in its DM (the only one it has). */
export async function replyInDm(s: AppServer, from: string, token: string, text: string): Promise<void> {
  const dm = ((await s.get('/v1/dms', token)).body.dms as { id: string }[])[0];
  assert.ok(dm, 'the DM');
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'dm', dm_id: dm!.id }, from: { type: 'agent', id: from }, parts: [{ kind: 'text', text }] },
    token,
  );
  assert.is(r.status, 200, r.text);
}
