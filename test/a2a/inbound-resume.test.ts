// The inbound A2A gateway resumes the tasks a stopped server left open (docs/a2a.md "The task
// follows svc's events"): the app in this process on one sqlite file, stopped while a task waits
// and started again; the agent's reply, sent after the restart or stored while the gateway was
// down, completes the task, which GetTask then reads back.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TaskState } from '@a2a-js/sdk';
import { startApp, type AppServer } from '../helpers/app.js';
import { eventually } from '../helpers/server.js';
import { a2aInboundFeature } from '../../src/a2a/inbound/feature.js';
import { defaultFeatures } from '../../src/features.js';
import { clientOf, replyInDm, submit, textOf } from './resume-helpers.js';

const CONFIG = { auth: { agent_registration: 'open' }, server: { a2a: { agents: ['ada'] } } };

async function twoAgents(s: AppServer): Promise<{ ada: string; bob: string }> {
  const reg = async (id: string) => (await s.post('/v1/agents/register', { requested_agent_id: id })).body.agent_token as string;
  return { ada: await reg('ada'), bob: await reg('bob') };
}

const t = suite('A2A tasks left open by a stopped server');

t('a task submitted before a restart completes with the reply the agent sends after it', async () => {
  const s = await startApp({ config: CONFIG });
  try {
    const { ada, bob } = await twoAgents(s);
    const task = await submit(await clientOf(s.url, 'ada', bob), 'still there?');
    await s.restart();
    await replyInDm(s, 'ada', ada, 'yes, after the restart');
    const client = await clientOf(s.url, 'ada', bob);
    const done = await eventually(
      async () => {
        const got = await client.getTask({ tenant: '', id: task.id });
        return got.status?.state === TaskState.TASK_STATE_COMPLETED ? got : undefined;
      },
      10_000,
      'the task completed',
    );
    assert.is(textOf(done!.status?.message), 'yes, after the restart');
    assert.is(textOf(done!.history[0]), 'still there?');
    assert.is(textOf(done!.history.at(-1)), 'yes, after the restart', 'the reply joins the history, as the SDK adds a status message');
  } finally {
    await s.dispose();
  }
});

t('a reply stored while the gateway was down completes the task when it starts again', async () => {
  const s = await startApp({ config: CONFIG });
  try {
    const { ada, bob } = await twoAgents(s);
    const first = await submit(await clientOf(s.url, 'ada', bob), 'first question');
    const second = await submit(await clientOf(s.url, 'ada', bob), 'second question');
    await s.stop();
    // The same store served without the gateway: the agent answers both while nothing follows the tasks.
    const plain = await startApp({
      dir: s.dir,
      keepConfig: true,
      features: defaultFeatures.filter((f) => f !== a2aInboundFeature),
    });
    try {
      await replyInDm(plain, 'ada', ada, 'answer one');
      await replyInDm(plain, 'ada', ada, 'answer two');
    } finally {
      await plain.stop();
    }
    await s.restart();
    const client = await clientOf(s.url, 'ada', bob);
    const stateOf = async (id: string) => (await client.getTask({ tenant: '', id })).status;
    await eventually(async () => (await stateOf(second.id))?.state === TaskState.TASK_STATE_COMPLETED, 10_000, 'caught up');
    // Replies match the open tasks oldest first, as they do live.
    assert.is(textOf((await stateOf(first.id))?.message), 'answer one');
    assert.is(textOf((await stateOf(second.id))?.message), 'answer two');
    assert.is((await stateOf(first.id))?.state, TaskState.TASK_STATE_COMPLETED);
  } finally {
    await s.dispose();
  }
});

t('a resumed task canceled after the restart stays canceled; the next open task gets the reply', async () => {
  const s = await startApp({ config: CONFIG });
  try {
    const { ada, bob } = await twoAgents(s);
    const first = await submit(await clientOf(s.url, 'ada', bob), 'never mind this one');
    const second = await submit(await clientOf(s.url, 'ada', bob), 'but this one');
    await s.restart();
    await eventually(() => s.output().includes('a2a: open tasks resumed'), 10_000, 'the resume');
    const client = await clientOf(s.url, 'ada', bob);
    assert.is((await client.cancelTask({ tenant: '', id: first.id, metadata: {} })).status?.state, TaskState.TASK_STATE_CANCELED);
    await replyInDm(s, 'ada', ada, 'answering the second');
    const done = await eventually(
      async () => {
        const got = await client.getTask({ tenant: '', id: second.id });
        return got.status?.state === TaskState.TASK_STATE_COMPLETED ? got : undefined;
      },
      10_000,
      'the second task completed',
    );
    assert.is(textOf(done!.status?.message), 'answering the second');
    assert.is((await client.getTask({ tenant: '', id: first.id })).status?.state, TaskState.TASK_STATE_CANCELED);
  } finally {
    await s.dispose();
  }
});

t.run();
