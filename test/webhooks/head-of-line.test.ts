// Webhook head-of-line blocking (issue 38 item 5), on every backend: with more deliveries waiting
// on a retry than the worker reads at once (100), a newer event of the same webhook is still
// delivered at once, every waiting one was tried, and the svc_webhook_pending gauge shows the same
// true count as the listing. The retries here wait 5-10 minutes, far past the test's bounds: a
// worker that reads only the oldest pending deliveries never reaches the newer one in the test.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshSchema } from '../helpers/pg.js';
import { startPgServer } from '../helpers/pg-server.js';
import { eventually, roomMessage, startServer, TOKENS, type TestServer } from '../helpers/server.js';

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

interface Attempt {
  text: string;
  id: string;
  status: number;
}

/** A receiver that refuses (503) every message whose text starts with "stuck" and takes the others. */
async function startReceiver(): Promise<{ url: string; attempts: Attempt[]; close(): Promise<void> }> {
  const attempts: Attempt[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { message: { parts: { text?: string }[] } } };
      const text = body.data.message.parts[0]?.text ?? '';
      const status = text.startsWith('stuck') ? 503 : 200;
      attempts.push({ text, id: String(req.headers['webhook-id']), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function gauge(s: TestServer): Promise<number | undefined> {
  const m = /^svc_webhook_pending\{webhook="out"\} (\d+)$/m.exec((await s.req('GET', '/metrics', { token: admin })).text);
  return m ? Number(m[1]) : undefined;
}

async function scenario(start: (url: string) => Promise<TestServer>): Promise<void> {
  const rx = await startReceiver();
  const s = await start(rx.url);
  try {
    await eventually(async () => (await s.get('/v1/webhooks', admin)).body.webhooks[0].cursor !== null, 10_000, 'webhook cursor');
    for (let i = 0; i < STUCK; i++) {
      const r = await s.post('/v1/messages', roomMessage('ops', 'bot', `stuck ${i}`), admin);
      assert.is(r.status, 200, r.text);
    }
    const tried = () => new Set(rx.attempts.filter((a) => a.text.startsWith('stuck')).map((a) => a.id)).size;
    // At least a worker's batch of them failed once and waits minutes for its retry.
    await eventually(() => tried() >= 100, 30_000, 'a first attempt of 100 stuck deliveries');

    const fresh = await s.post('/v1/messages', roomMessage('ops', 'bot', 'fresh news'), admin);
    assert.is(fresh.status, 200, fresh.text);
    await eventually(
      () => rx.attempts.some((a) => a.text === 'fresh news' && a.status === 200),
      30_000,
      'the newer event delivered while 100+ older ones wait on a retry',
    );
    // Every stuck delivery got its first attempt, and only that one (the retries are minutes away).
    await eventually(() => tried() === STUCK, 30_000, `a first attempt of all ${STUCK} stuck deliveries`);
    assert.is(rx.attempts.filter((a) => a.text.startsWith('stuck')).length, STUCK);

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
  await scenario((url) => startServer({ config: { ...hookConfig(url), store: { backend: 'memory' } }, env: ENV }));
});

test('sqlite', async () => {
  await scenario((url) => startServer({ config: hookConfig(url), env: ENV }));
});

test('postgres', async () => {
  const schema = await freshSchema();
  try {
    await scenario((url) => startPgServer(schema, hookConfig(url), { env: ENV }));
  } finally {
    await schema.drop();
  }
});

test.run();
