// `svc agent run` without a token under open registration: the first attach claims the agent, the
// token (shown once) is kept with the other agent tokens (no config here: under HOME, in the folder
// of this network's identity), and the next start attaches and replies with it.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgentRun, writeBot, type AgentRunProc } from '../helpers/agent-run.js';
import { eventually, type Json } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';

test('a first claim keeps its token, and the next start attaches and replies with it', async () => {
  const s = await startApp({ config: { auth: { mode: 'open', agent_registration: 'open', tokens: [] } } });
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-agent-claim-'));
  const bot = writeBot(dir);
  let p: AgentRunProc | undefined;
  try {
    const args = ['--url', s.url, '--agent', 'zed', '--state-dir', path.join(dir, 'state'), '--', process.execPath, bot];
    const env = { RUNS_FILE: path.join(dir, 'runs'), REPLY_TEXT: 'zed here', HOME: dir };
    p = await startAgentRun(args, env, dir);
    await p.waitLog(/registered zed; its agent token is kept in /);
    // Kept by the network's identity: its id and the uid its store holds.
    const tokenFile = path.join(dir, '.svc', 'agents', `testnet@${(await s.get('/v1/network')).body.uid}`, 'zed.token');
    assert.ok(p.stderr().includes(tokenFile), p.stderr());
    assert.match(readFileSync(tokenFile, 'utf8'), /^agt_v1_\S+\n$/);
    assert.is(statSync(tokenFile).mode & 0o077, 0, 'private to its owner');
    await p.stop();

    p = await startAgentRun(args, env, dir);
    const other = await s.post('/v1/agents/register', { requested_agent_id: 'yan' });
    assert.is(other.status, 200, other.text);
    const yan = other.body.agent_token as string;
    const sent = await s.post(
      '/v1/messages',
      { target: { kind: 'dm', participant_ids: ['zed'] }, from: { type: 'agent', id: 'yan' }, parts: [{ kind: 'text', text: 'hi zed' }] },
      yan,
    );
    assert.is(sent.status, 200, sent.text);
    const dmId = (await s.get('/v1/dms', yan)).body.dms[0].id as string;
    await eventually(
      async () =>
        ((await s.get(`/v1/dms/${dmId}/messages`, yan)).body.messages as Json[]).some(
          (m) => m.from.id === 'zed' && m.parts[0].text === 'zed here',
        ),
      20_000,
      'the reply',
    );
  } finally {
    await p?.stop();
    await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
