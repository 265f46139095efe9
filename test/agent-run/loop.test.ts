// Loop safety: replies of `svc agent run` are ordinary agent sends, so the loop guard counts them.
// Two agents that answer each other's mentions forever are stopped by it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runsOf, startAgentRun, writeBot, type AgentRunProc } from '../helpers/agent-run.js';
import { eventually, TOKENS, type Json } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;

test('two agents replying to each other are stopped by the loop guard', async () => {
  const s = await startApp({
    config: { rooms: [{ id: 'arena', name: 'Arena', members: ['dave', 'eve'], loop_guard: { max_consecutive: 4, pause_ms: 60_000 } }] },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-agent-loop-'));
  const bot = writeBot(dir);
  const procs: AgentRunProc[] = [];
  try {
    const start = (me: string, other: string) =>
      startAgentRun(
        ['--url', s.url, '--agent', me, '--state-dir', path.join(dir, me), '--', process.execPath, bot],
        { SVC_TOKEN: ADMIN, RUNS_FILE: path.join(dir, `${me}.runs`), REPLY_TEXT: `@${other} your turn` },
        dir,
      );
    procs.push(await start('dave', 'eve'), await start('eve', 'dave'));
    const kick = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'arena' }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text: '@dave start' }] },
      ADMIN,
    );
    assert.is(kick.status, 200, kick.text);

    const refusal = await eventually(
      () =>
        procs
          .map((p) => p.stderr())
          .join('')
          .split('\n')
          .find((l) => /the loop guard refused the reply/.test(l)) ?? '',
      60_000,
      'a refused reply',
    );
    assert.match(
      refusal,
      /^svc agent run: run room:arena \(1 wake: \S+\) exit 0 in \S+; reply refused; the loop guard refused the reply: 429 loop_detected: agents dave, eve exchanged 4 consecutive messages/,
    );
    const agentMessages = async () =>
      ((await s.get('/v1/rooms/arena/messages', ADMIN)).body.messages as Json[]).filter((m) => m.from.type === 'agent');
    assert.is((await agentMessages()).length, 4, 'four turns, then nothing');
    // Quiet afterwards: the refused reply woke nobody.
    const runs = () => runsOf(path.join(dir, 'dave.runs')).length + runsOf(path.join(dir, 'eve.runs')).length;
    const settled = runs();
    await new Promise((r) => setTimeout(r, 1500));
    assert.is(runs(), settled);
    assert.is(settled, 5, 'four answered runs and the refused one');
    assert.is((await agentMessages()).length, 4);
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
