// The outbound gateway reads its wakes from the store by a cursor, not from live events only
// (#42 part 3): a mention of a remote A2A agent stored while the gateway's server was stopped
// (posted through another server, from another folder, on the same sqlite file and without
// `a2a_agents`) is sent to
// the agent and answered once the gateway runs again, and a wake answered before a restart is
// not sent again after it.

import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp } from '../helpers/app.js';
import { eventually, removeDir, roomMessage, tempDir, TOKENS, type Json } from '../helpers/server.js';
import { startTestAgent } from './outbound-agent.js';

const admin = TOKENS.admin.value;
const alpha = TOKENS.alphaOnly.value;
const rooms = [{ id: 'lab', members: ['alpha'] }];

const test = suite('outbound A2A wakes stored while the gateway was stopped');

test('a mention stored while the gateway was stopped is answered when it starts; one answered before a restart is not sent again', async () => {
  const agent = await startTestAgent();
  const dir = tempDir();
  const gatewayConfig = {
    rooms,
    a2a_agents: [{ id: 'echo', name: 'Echo', card_url: agent.cardUrl, rooms: ['lab'], timeout_ms: 5000, allow_private_network: true }],
  };
  const gw = await startApp({ dir, config: gatewayConfig });
  try {
    const history = async (s: typeof gw) => {
      const r = await s.get('/v1/rooms/lab/messages', admin);
      assert.is(r.status, 200, r.text);
      return r.body.messages as Json[];
    };
    const replyTo = (s: typeof gw, id: string) =>
      eventually(
        async () => {
          const all = await history(s);
          const i = all.findIndex((m) => m.id === id);
          return i >= 0 ? all.slice(i + 1).find((m) => m.from.id === 'echo' && m.parts[0]?.text?.includes('echo:')) : undefined;
        },
        10_000,
        `echo's reply to ${id}`,
      );
    const send = async (s: typeof gw, text: string) => {
      const r = await s.post('/v1/messages', roomMessage('lab', 'alpha', text), alpha);
      assert.is(r.status, 200, r.text);
      return r.body.message_id as string;
    };
    const sentTimes = (id: string) => agent.received.filter((m) => m.messageId === id).length;

    await eventually(async () => (await gw.get('/v1/agents/echo', admin)).body.rooms?.includes('lab'), 5_000, 'echo in lab');
    const live = await send(gw, '@echo while running');
    await replyTo(gw, live);
    await gw.stop();

    // Another server on the same store, without the gateway: the mention is stored, nobody sends it.
    const other = await startApp({ config: { rooms, store: { path: path.join(dir, '.svc', 'svc.db') } } });
    let stored: string;
    try {
      stored = await send(other, '@echo while the gateway was stopped');
    } finally {
      await other.dispose();
    }
    assert.is(sentTimes(stored), 0);

    await gw.restart();
    const reply = await replyTo(gw, stored);
    assert.is(reply.parts[0].text, 'echo: @echo while the gateway was stopped');
    assert.is(sentTimes(stored), 1, 'the stored mention was sent once');

    // Another restart: both answered wakes are behind the cursor and claimed; a new mention's answer
    // shows the gateway has read the feed past them.
    await gw.restart();
    const after = await send(gw, '@echo after the second restart');
    await replyTo(gw, after);
    assert.is(sentTimes(live), 1, 'the wake answered before the first restart was not sent again');
    assert.is(sentTimes(stored), 1, 'the wake answered after the first restart was not sent again');
    assert.is(sentTimes(after), 1);
  } finally {
    await gw.stop();
    await agent.close();
    removeDir(dir);
  }
});

test.run();
