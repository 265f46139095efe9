import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { eventually, roomMessage, startServer, TOKENS, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from './receiver.js';

const SECRET = `whsec_${Buffer.from('a test signing key of 32 bytes!!').toString('base64')}`;
const ENV = { HOOK_SECRET: SECRET, SVC_WEBHOOK_POLL_MS: '100' };
const admin = TOKENS.admin.value;

function hookConfig(url: string, extra: Record<string, unknown> = {}) {
  return {
    rooms: [{ id: 'ops', members: ['bot'] }],
    webhooks: [
      {
        id: 'out',
        url,
        events: ['message.created'],
        secret_env: 'HOOK_SECRET',
        allow_private_network: true,
        timeout_ms: 2000,
        retry: { window_ms: 60_000, initial_ms: 100, max_ms: 400 },
        ...extra,
      },
    ],
  };
}

/** Waits until the webhook's worker has set its cursor (a new webhook starts at the end of the log). */
async function ready(s: TestServer): Promise<void> {
  await eventually(async () => (await s.get('/v1/webhooks', admin)).body.webhooks[0].cursor !== null, 10_000, 'webhook cursor');
}

const test = suite('outbound webhooks');

test('a receiver that fails a few times gets the event once delivered, with the same webhook-id on every attempt, signed', async () => {
  const rx: Receiver = await startReceiver([500, 503, 502]);
  const s = await startServer({ config: hookConfig(rx.url), env: ENV });
  try {
    await ready(s);
    const sent = await s.post('/v1/messages', roomMessage('ops', 'bot', 'deploy finished'), admin);
    assert.is(sent.status, 200, sent.text);
    await eventually(() => rx.received.some((r) => r.status === 200), 10_000, 'a 200 answer');
    // Nothing more arrives once it was taken.
    await new Promise((r) => setTimeout(r, 500));
    assert.is(rx.received.length, 4);
    const ids = new Set(rx.received.map((r) => r.headers['webhook-id']));
    assert.is(ids.size, 1);
    const wh = new Webhook(SECRET);
    for (const r of rx.received) {
      const payload = wh.verify(r.body, r.headers as Record<string, string>) as { type: string; data: { message: { id: string } } };
      assert.is(payload.type, 'message.created');
      assert.is(payload.data.message.id, sent.body.message_id);
    }
    const list = await s.get('/v1/webhooks/out/deliveries', admin);
    assert.is(list.status, 200);
    assert.is(list.body.deliveries.length, 1);
    assert.is(list.body.deliveries[0].status, 'delivered');
    assert.is(list.body.deliveries[0].attempts, 4);
    const metrics = await s.req('GET', '/metrics', { token: admin });
    assert.match(metrics.text, /svc_webhook_delivered_total\{webhook="out"\} 1/);
    assert.match(metrics.text, /svc_webhook_failed_total\{webhook="out"\} 3/);
  } finally {
    await s.dispose();
    await rx.close();
  }
});

test.run();
