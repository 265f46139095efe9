// Outbound webhooks end to end. The app runs in the test process (the CLI's webhooks test, retry and
// deliveries run as processes against it), but where the server is killed (kill -9), a `svc serve`
// process.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { eventually, roomMessage, startServer, TOKENS, type HttpServer } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import type { Resolve } from '../../src/http/outbound.js';
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
async function ready(s: HttpServer): Promise<void> {
  await eventually(async () => (await s.get('/v1/webhooks', admin)).body.webhooks[0].cursor !== null, 10_000, 'webhook cursor');
}

const test = suite('outbound webhooks');

test('a receiver that fails a few times gets the event once delivered, with the same webhook-id on every attempt, signed', async () => {
  const rx: Receiver = await startReceiver([500, 503, 502]);
  const s = await startApp({ config: hookConfig(rx.url), env: ENV });
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

test('svc webhooks test sends a signed webhook.test through the outbox; svc webhooks list shows the webhook', async () => {
  const rx = await startReceiver();
  const s = await startApp({ config: hookConfig(rx.url), env: ENV });
  try {
    await ready(s);
    const env = { SVC_URL: s.url, SVC_TOKEN: admin };
    const r = await cli(['webhooks', 'test', 'out'], { env });
    assert.is(r.code, 0, r.stderr);
    await eventually(() => rx.received.length === 1, 10_000, 'the test delivery');
    const payload = new Webhook(SECRET).verify(rx.received[0]!.body, rx.received[0]!.headers as Record<string, string>) as { type: string };
    assert.is(payload.type, 'webhook.test');
    const list = await cli(['webhooks', 'list'], { env });
    assert.is(list.code, 0, list.stderr);
    assert.match(list.stdout, /out\s+http:\/\/127\.0\.0\.1:\d+\/hook\s+message\.created/);
    assert.not.match(list.stdout, SECRET);
  } finally {
    await s.dispose();
    await rx.close();
  }
});

test('a delivery is dead-lettered after the retry window, and svc webhooks retry delivers it', async () => {
  const rx = await startReceiver(new Array(1000).fill(500));
  const s = await startApp({ config: hookConfig(rx.url, { retry: { window_ms: 600, initial_ms: 100, max_ms: 200 } }), env: ENV });
  try {
    await ready(s);
    const sent = await s.post('/v1/messages', roomMessage('ops', 'bot', 'will fail'), admin);
    assert.is(sent.status, 200);
    const dead = await eventually(
      async () => {
        const r = await s.get('/v1/webhooks/out/deliveries?status=dead', admin);
        return r.body.deliveries.length === 1 && r.body.deliveries[0];
      },
      10_000,
      'a dead delivery',
    );
    assert.ok(dead.attempts >= 2);
    assert.match(dead.last_error, /500/);
    const listed = await s.get('/v1/webhooks', admin);
    assert.is(listed.body.webhooks[0].dead, 1);
    const before = rx.received.length;
    rx.script = [];
    const env = { SVC_URL: s.url, SVC_TOKEN: admin };
    const r = await cli(['webhooks', 'retry', 'out'], { env });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(dead.id));
    await eventually(() => rx.received.slice(before).some((x) => x.status === 200), 10_000, 'the retried delivery');
    assert.is(rx.received[rx.received.length - 1]!.headers['webhook-id'], dead.id);
    const after = await s.get(`/v1/webhooks/out/deliveries`, admin);
    assert.is(after.body.deliveries[0].status, 'delivered');
    const listedCli = await cli(['webhooks', 'deliveries', 'out', '--json'], { env });
    assert.is(JSON.parse(listedCli.stdout).deliveries[0].status, 'delivered');
  } finally {
    await s.dispose();
    await rx.close();
  }
});

test('kill -9 with deliveries pending loses none: each arrives after the restart', async () => {
  const rx = await startReceiver(new Array(1000).fill(503));
  const s = await startServer({ config: hookConfig(rx.url, { retry: { window_ms: 600_000, initial_ms: 100, max_ms: 300 } }), env: ENV });
  try {
    await ready(s);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await s.post('/v1/messages', roomMessage('ops', 'bot', `pending ${i}`), admin);
      ids.push(r.body.message_id);
    }
    await eventually(() => rx.received.length >= 5, 10_000, 'first attempts');
    await s.kill9();
    rx.script = [];
    await s.restart();
    await eventually(
      () => {
        const got = new Set(
          rx.received
            .filter((x) => x.status === 200)
            .map((x) => (JSON.parse(x.body) as { data: { message: { id: string } } }).data.message.id),
        );
        return ids.every((id) => got.has(id));
      },
      15_000,
      'every message delivered after the restart',
    );
    const done = await s.get('/v1/webhooks/out/deliveries?status=delivered', admin);
    assert.is(done.body.deliveries.length, 5);
  } finally {
    await s.dispose();
    await rx.close();
  }
});

test('a target on loopback is refused without allow_private_network, at config load and at connect time after DNS (a resolver the test controls)', async () => {
  const rx = await startReceiver();
  try {
    // At config load: the server does not start.
    let refused = '';
    try {
      const s = await startApp({ config: hookConfig(rx.url, { allow_private_network: false }), env: ENV });
      await s.dispose();
    } catch (err) {
      refused = String(err);
    }
    assert.match(refused, /webhooks\[0\]\.url: 127\.0\.0\.1 is a loopback, private or reserved address/);
    // A name that resolves to loopback passes the config check and is refused when connecting. The
    // name is resolved by the test's own resolver (given to the webhooks feature as the system's
    // resolver would be), so the check runs wherever the suite runs.
    const name = 'hooks.example';
    const asked: string[] = [];
    const resolve: Resolve = async (host) => {
      asked.push(host);
      return host === name ? [{ address: '127.0.0.1', family: 4 }] : [];
    };
    // Loaded here, after startApp set SVC_WEBHOOK_POLL_MS for the module's first load.
    const [{ defaultFeatures }, { webhooksFeature, webhooksResolving }] = await Promise.all([
      import('../../src/features.js'),
      import('../../src/webhooks/feature.js'),
    ]);
    const features = defaultFeatures.map((f) => (f === webhooksFeature ? webhooksResolving(resolve) : f));
    const url = rx.url.replace('127.0.0.1', name);
    const s = await startApp({ config: hookConfig(url, { allow_private_network: false }), env: ENV, features });
    try {
      await ready(s);
      await s.post('/v1/messages', roomMessage('ops', 'bot', 'to a private name'), admin);
      const d = await eventually(
        async () => (await s.get('/v1/webhooks/out/deliveries', admin)).body.deliveries.find((x: { attempts: number }) => x.attempts > 0),
        10_000,
        'an attempt',
      );
      assert.match(d.last_error, /refused: .*hooks\.example resolves to 127\.0\.0\.1/);
      assert.is(rx.received.length, 0);
      assert.ok(asked.includes(name), 'the name went through the resolver');
    } finally {
      await s.dispose();
    }
    // The same name and resolver with allow_private_network: the receiver gets it (the refusal
    // above was the address check, not a name that could not be reached).
    const allowed = await startApp({ config: hookConfig(url), env: ENV, features });
    try {
      await ready(allowed);
      await allowed.post('/v1/messages', roomMessage('ops', 'bot', 'to a private name, allowed'), admin);
      await eventually(() => rx.received.some((r) => r.status === 200), 10_000, 'a delivery through the resolved name');
    } finally {
      await allowed.dispose();
    }
  } finally {
    await rx.close();
  }
});

test.run();
