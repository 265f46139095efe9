import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgServer } from '../helpers/pg-server.js';
import { eventually, roomMessage, TOKENS, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from './receiver.js';

const SECRET = 'raw-secret-for-postgres-webhooks';
const admin = TOKENS.admin.value;
const config = (url: string) => ({
  rooms: [{ id: 'ops', members: ['bot'] }],
  webhooks: [
    {
      id: 'out',
      url,
      secret_env: 'HOOK_SECRET',
      allow_private_network: true,
      retry: { window_ms: 60_000, initial_ms: 100, max_ms: 300 },
    },
  ],
});

const test = suite('outbound webhooks on Postgres');

test('two instances on one schema: each event is delivered once, by one of them, and a restart loses none', async () => {
  const schema: PgSchema = await freshSchema();
  const rx: Receiver = await startReceiver([500, 500]);
  const servers: TestServer[] = [];
  try {
    const env = { HOOK_SECRET: SECRET, SVC_WEBHOOK_POLL_MS: '100' };
    servers.push(await startPgServer(schema, config(rx.url), { env }));
    servers.push(await startPgServer(schema, config(rx.url), { env }));
    const [a, b] = servers as [TestServer, TestServer];
    await eventually(async () => (await a.get('/v1/webhooks', admin)).body.webhooks[0].cursor !== null, 10_000, 'cursor');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await (i % 2 ? a : b).post('/v1/messages', roomMessage('ops', 'bot', `pg ${i}`), admin);
      assert.is(r.status, 200, r.text);
      ids.push(r.body.message_id);
    }
    const delivered = () =>
      rx.received.filter((x) => x.status === 200).map((x) => (JSON.parse(x.body) as { data: { message: { id: string } } }).data.message.id);
    await eventually(() => ids.every((id) => delivered().includes(id)), 15_000, 'every message delivered');
    await new Promise((r) => setTimeout(r, 500));
    assert.is(delivered().length, 6, 'each once');
    const wh = new Webhook(new Uint8Array(Buffer.from(SECRET)), { format: 'raw' });
    for (const r of rx.received) wh.verify(r.body, r.headers as Record<string, string>);
    // Both instances see the same outbox.
    const fromB = await b.get('/v1/webhooks/out/deliveries?status=delivered', admin);
    assert.is(fromB.body.deliveries.length, 6);

    // kill -9 both with deliveries pending; the outbox in the database keeps them.
    rx.script = new Array(1000).fill(503);
    const late = await a.post('/v1/messages', roomMessage('ops', 'bot', 'pending across a crash'), admin);
    await eventually(() => rx.received.some((x) => x.status === 503), 10_000, 'a failed attempt');
    await a.kill9();
    await b.kill9();
    rx.script = [];
    await a.restart();
    await eventually(() => delivered().includes(late.body.message_id), 30_000, 'the pending message after the restart');
  } finally {
    for (const s of servers) await s.dispose();
    await rx.close();
    await schema.drop();
  }
});

test.run();
