// A remote A2A agent's card and the interfaces it names pass the webhooks' private-address guard
// unless its declaration says `allow_private_network: true`: a literal loopback card URL is refused
// when declared (svc apply answers 400 with the field), and a name that resolves to loopback
// is refused when connecting, so the agent is never reached and is marked down. The name is this
// machine's host name, which its hosts file (or the container's network) maps to a loopback or
// private address; `localhost` itself is refused as a literal is.

import { hostname } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp } from '../helpers/app.js';
import { eventually, TOKENS, type Json } from '../helpers/server.js';
import { startTestAgent } from './outbound-agent.js';

const admin = TOKENS.admin.value;
const test = suite('remote A2A agents on a private network');

test('refused unless allow_private_network: a literal at apply, a name at connect; allowed with it', async () => {
  const agent = await startTestAgent();
  const byName = agent.cardUrl.replace('127.0.0.1', hostname());
  assert.is.not(byName, agent.cardUrl);
  const s = await startApp({
    config: {
      rooms: [{ id: 'lab' }],
      a2a_agents: [{ id: 'hidden', card_url: byName, rooms: ['lab'], check_interval_ms: 100, down_after: 1 }],
    },
  });
  try {
    const w = await eventually(
      async () => ((await s.get('/v1/network', admin)).body.warnings ?? []).find((x: Json) => x.code === 'a2a_agent_down'),
      10_000,
      'the down warning',
    );
    assert.match(w.message, /resolves to \S+, a loopback, private or reserved address/);
    assert.is(agent.cardFetches(), 0, 'the card was never fetched');

    const refused = await s.post('/v1/apply', { network_id: 'testnet', a2a_agents: [{ id: 'lit', card_url: agent.cardUrl }] }, admin);
    assert.is(refused.status, 400, refused.text);
    assert.match(refused.body.error, /body\.a2a_agents\[0\]\.card_url: .*allow_private_network: true/);

    const allowed = await s.post(
      '/v1/apply',
      { network_id: 'testnet', a2a_agents: [{ id: 'lit', card_url: agent.cardUrl, rooms: ['lab'], allow_private_network: true }] },
      admin,
    );
    assert.is(allowed.status, 200, allowed.text);
    await eventually(() => agent.cardFetches() > 0, 10_000, 'the allowed card fetched');
  } finally {
    await s.dispose();
    await agent.close();
  }
});

test.run();
