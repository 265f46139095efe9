// The inbound A2A gateway on Postgres: a task received by an instance that then stops is taken up
// by the instances started after it, and completes when the agent answers; two instances resuming
// one task agree on what is stored (its reply once, in one terminal state).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TaskState } from '@a2a-js/sdk';
import { freshSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { eventually } from '../helpers/server.js';
import { clientOf, replyInDm, submit, textOf } from './resume-helpers.js';

const t = suite('A2A tasks left open by a stopped instance, on Postgres');
const CONFIG = { auth: { agent_registration: 'open' }, server: { a2a: { agents: ['ada'] } } };

t('instances started after the one that received a task complete it when the agent answers', async () => {
  const pgs = await freshSchema();
  const a = await startPgApp(pgs, CONFIG);
  const later: Awaited<ReturnType<typeof startPgApp>>[] = [];
  try {
    const reg = async (id: string) => (await a.post('/v1/agents/register', { requested_agent_id: id })).body.agent_token as string;
    const ada = await reg('ada');
    const bob = await reg('bob');
    const task = await submit(await clientOf(a.url, 'ada', bob), 'are the numbers in?');
    await a.dispose();
    later.push(await startPgApp(pgs, CONFIG), await startPgApp(pgs, CONFIG));
    const c = later[1]!;
    // Both have resumed it (their logs say so) before the agent answers through one of them.
    for (const s of later) await eventually(() => s.output().includes('a2a: open tasks resumed'), 10_000, 'the resume');
    await replyInDm(c, 'ada', ada, 'they are');
    for (const s of later) {
      const client = await clientOf(s.url, 'ada', bob);
      const done = await eventually(
        async () => {
          const got = await client.getTask({ tenant: '', id: task.id });
          return got.status?.state === TaskState.TASK_STATE_COMPLETED ? got : undefined;
        },
        10_000,
        'the task completed',
      );
      assert.is(textOf(done!.status?.message), 'they are');
      assert.equal(
        done!.history.map((m) => textOf(m)),
        ['are the numbers in?', 'they are'],
        'the reply is in the history once',
      );
    }
  } finally {
    for (const s of later) await s.dispose();
    await a.dispose();
    await pgs.drop();
  }
});

t.run();
