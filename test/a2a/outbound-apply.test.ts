// `svc apply` with a2a_agents (#42 part 3): the real CLI declares a remote A2A agent on a running
// server, which makes it a member of the declared room and answers its mentions; the token is read
// from auth_env by the CLI and never printed; applying again changes nothing; a restart keeps the
// agent and its conversation's A2A context.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify } from 'yaml';
import { startApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { startTestAgent } from './outbound-agent.js';

const admin = TOKENS.admin.value;
const TOKEN = 'tok-helper-remote-0123456789';

test('svc apply declares a remote A2A agent: it joins its room, answers a mention, a second apply changes nothing, and it survives a restart', async () => {
  const agent = await startTestAgent('helper');
  const s = await startApp({ config: { rooms: [{ id: 'ops', members: ['alpha'] }] } });
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-a2a-apply-'));
  try {
    const file = path.join(dir, 'agents.yaml');
    writeFileSync(
      file,
      stringify({
        network: { id: 'testnet' },
        rooms: [{ id: 'ops', members: ['alpha'] }],
        a2a_agents: [
          {
            id: 'helper',
            card_url: agent.cardUrl,
            auth_env: 'HELPER_TOKEN',
            rooms: ['ops'],
            check_interval_ms: 200,
            allow_private_network: true,
          },
        ],
      }),
    );
    const args = ['apply', file, '--url', s.url, '--token', admin];
    const unset = await cli(args, { cwd: dir });
    assert.is(unset.code, 1);
    assert.match(unset.stderr, /a2a_agents\[0\]\.auth_env: environment variable HELPER_TOKEN is not set/);

    const r = await cli(args, { cwd: dir, env: { HELPER_TOKEN: TOKEN } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^created\s+a2a_agent\s+helper$/m);
    assert.not.match(r.stdout + r.stderr, /tok-helper-remote/);

    const a = await s.get('/v1/agents/helper', admin);
    assert.is(a.status, 200, a.text);
    assert.is(a.body.kind, 'a2a');
    assert.equal(a.body.rooms, ['ops'], 'the apply set the room as declared, then the agent joined it');

    const sent = await s.post('/v1/messages', roomMessage('ops', 'alpha', '@helper check the deploy'), TOKENS.alphaOnly.value);
    assert.is(sent.status, 200, sent.text);
    const reply = await eventually(
      async () => ((await s.get('/v1/rooms/ops/messages', admin)).body.messages as Json[]).find((m) => m.from.id === 'helper'),
      10_000,
      'the reply of helper',
    );
    assert.is(reply.parts[0].text, 'echo: @helper check the deploy');
    assert.ok(agent.auth.includes(`Bearer ${TOKEN}`), 'the applied token is sent to the agent');

    const again = await cli(args, { cwd: dir, env: { HELPER_TOKEN: TOKEN } });
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stdout, /^unchanged\s+a2a_agent\s+helper$/m);
    const still = await s.get('/v1/agents/helper', admin);
    assert.equal(still.body.rooms, ['ops'], 'applying the room again does not drop the agent from it');

    // Kept in the store: after a restart the applied agent still answers, in the same A2A context.
    await s.restart();
    const after = await s.post('/v1/messages', roomMessage('ops', 'alpha', '@helper and now?'), TOKENS.alphaOnly.value);
    assert.is(after.status, 200, after.text);
    await eventually(() => agent.received.find((m) => m.messageId === after.body.message_id), 10_000, 'the mention after the restart');
    const [first, second] = [agent.received[0]!, agent.received.find((m) => m.messageId === after.body.message_id)!];
    assert.is(second.contextId, first.contextId, 'the conversation context survived the restart');
  } finally {
    await s.dispose();
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
