// Webhook head-of-line blocking (issue 38 item 5), on every backend: with more deliveries waiting
// on a retry than the worker reads at once (100), a newer event of the same webhook is still
// delivered at once, every waiting one was tried, and the svc_webhook_pending gauge shows the same
// true count as the listing. The retries here wait 5-10 minutes, far past the test's bounds: a
// worker that reads only the oldest pending deliveries never reaches the newer one in the test.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { eventually, roomMessage, TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { startReceiver } from './receiver.js';

const admin = TOKENS.admin.value;
const ENV = { HOOK_SECRET: 'raw-secret-for-head-of-line', SVC_WEBHOOK_POLL_MS: '100' };
/** More than the worker's batch of 100. */
const STUCK = 120;

const hookConfig = (url: string) => ({
  rooms: [{ id: 'ops', members: ['bot'] }],
  webhooks: [
    {
      id: 'out',
      url,
      events: ['message.created'],
      secret_env: 'HOOK_SECRET',
      allow_private_network: true,
      timeout_ms: 5000,
      retry: { window_ms: 3_600_000, initial_ms: 600_000, max_ms: 600_000 },
    },
  ],
});

/** The text of a delivered message.created payload. */
const textOf = (body: string): string =>
  (JSON.parse(body) as { data: { message: { parts: { text?: string }[] } } }).data.message.parts[0]?.text ?? '';

async function gauge(s: AppServer): Promise<number | undefined> {
  const m = /^svc_webhook_pending\{webhook="out"\} (\d+)$/m.exec((await s.req('GET', '/metrics', { token: admin })).text);
  return m ? Number(m[1]) : undefined;
}

async function scenario(start: (url: string) => Promise<AppServer>): Promise<void> {
  // Refuses (503) every message whose text starts with "stuck", takes the others.
  const rx = await startReceiver((body) => (textOf(body).startsWith('stuck') ? 503 : 200));
  const attempts = () => rx.received.map((r) => ({ text: textOf(r.body), id: String(r.headers['webhook-id']), status: r.status }));
  const s = await start(rx.url);
  try {
    await eventually(async () => (await s.get('/v1/webhooks', admin)).body.webhooks[0].cursor !== null, 10_000, 'webhook cursor');
    for (let i = 0; i < STUCK; i++) {
      const r = await s.post('/v1/messages', roomMessage('ops', 'bot', `stuck ${i}`), admin);
      assert.is(r.status, 200, r.text);
    }
    const stuck = () => attempts().filter((a) => a.text.startsWith('stuck'));
    const tried = () => new Set(stuck().map((a) => a.id)).size;
    // At least a worker's batch of them failed once and waits minutes for its retry.
    await eventually(() => tried() >= 100, 30_000, 'a first attempt of 100 stuck deliveries');

    const fresh = await s.post('/v1/messages', roomMessage('ops', 'bot', 'fresh news'), admin);
    assert.is(fresh.status, 200, fresh.text);
    await eventually(
      () => attempts().some((a) => a.text === 'fresh news' && a.status === 200),
      30_000,
      'the newer event delivered while 100+ older ones wait on a retry',
    );
    // Every stuck delivery got its first attempt, and only that one (the retries are minutes away).
    await eventually(() => tried() === STUCK, 30_000, `a first attempt of all ${STUCK} stuck deliveries`);
    assert.is(stuck().length, STUCK);

    // The gauge and the listing show the same true count, past the worker's batch of 100.
    const listed = async () => (await s.get('/v1/webhooks', admin)).body.webhooks[0].pending as number;
    await eventually(async () => (await gauge(s)) === STUCK && (await listed()) === STUCK, 10_000, `gauge and listing at ${STUCK}`);
    const pending = await s.get(`/v1/webhooks/out/deliveries?status=pending&limit=1000`, admin);
    assert.is(pending.body.deliveries.length, STUCK);
  } finally {
    await s.dispose();
    await rx.close();
  }
}

const test = suite('webhook deliveries waiting on a retry do not hold newer ones back');

test('memory', async () => {
  await scenario((url) => startApp({ config: { ...hookConfig(url), store: { backend: 'memory' } }, env: ENV }));
});

test('sqlite', async () => {
  await scenario((url) => startApp({ config: hookConfig(url), env: ENV }));
});

test('postgres', async () => {
  const schema = await freshSchema();
  try {
    await scenario((url) => startPgApp(schema, hookConfig(url), { env: ENV }));
  } finally {
    await schema.drop();
  }
});

test.run();
