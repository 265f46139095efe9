// svc webhooks deliveries (issue 38 item 23): a pending delivery waiting on a retry shows when it is
// tried next, so it does not read as stuck.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { eventually, roomMessage, startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';

const admin = TOKENS.admin.value;
let s: TestServer;
test.before(async () => {
  s = await startServer({
    config: {
      rooms: [{ id: 'general', members: ['alpha'] }],
      // Nothing listens on port 9: every attempt fails and the delivery waits on its next retry.
      webhooks: [{ id: 'out', url: 'http://127.0.0.1:9/hook', allow_private_network: true, secret_env: 'OUT_SECRET' }],
    },
    env: { OUT_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', SVC_WEBHOOK_POLL_MS: '100' },
  });
});
test.after(async () => s.dispose());

test('a pending delivery is listed with the time of its next attempt', async () => {
  const sent = await s.post('/v1/messages', { ...roomMessage('general', 'op', 'hello'), from: { type: 'human', id: 'op' } }, admin);
  assert.is(sent.status, 200, sent.text);
  const d: Json = await eventually(
    async () => {
      const r = await s.get('/v1/webhooks/out/deliveries', admin);
      return r.body.deliveries.find((x: Json) => x.status === 'pending' && x.attempts > 0);
    },
    10_000,
    'a failed first attempt',
  );
  const r = await cli(['webhooks', 'deliveries', 'out', '--url', s.url, '--token', admin]);
  assert.is(r.code, 0, r.stderr);
  const [head, ...rows] = r.stdout.trim().split('\n');
  assert.match(head!, /\bNEXT\b/);
  const row = rows.find((l) => l.startsWith(d.id))!;
  assert.ok(row, r.stdout);
  assert.match(row, / pending +\d+ +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /);
});

test.run();
