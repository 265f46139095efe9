import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { SseClient, attachAs, metricValue } from '../helpers/live.js';

const t = suite<{ s: AppServer }>('GET /metrics');
t.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', members: ['alpha'] }] } });
});
t.after(async ({ s }) => s.dispose());

t('is for admin credentials only', async ({ s }) => {
  const anon = await s.get('/metrics');
  assert.is(anon.status, 401);
  assert.is(anon.body.code, 'unauthorized');
  const observer = await s.get('/metrics', TOKENS.observer.value);
  assert.is(observer.status, 403);
  assert.is(observer.body.code, 'forbidden');
  assert.is((await s.get('/metrics', 'not-a-token')).status, 401);
  const admin = await s.get('/metrics', TOKENS.adminOnly.value);
  assert.is(admin.status, 200);
  assert.match(admin.headers.get('content-type') ?? '', 'text/plain');
});

t('exposes the HTTP, live, broker, store and relay series in Prometheus text', async ({ s }) => {
  const r = await s.get('/metrics', TOKENS.admin.value);
  for (const name of [
    'svc_http_requests_total',
    'svc_http_request_duration_seconds',
    'svc_sse_subscribers',
    'svc_attach_clients',
    'svc_broker_drops_total',
    'svc_events_published_total',
    'svc_store_healthy',
    'svc_store_data_bytes',
    'svc_relay_frames_total',
    'svc_relay_failures_total',
    'svc_relay_refused_total',
  ]) {
    assert.match(r.text, `# TYPE ${name} `, name);
  }
  assert.is(await metricValue(s, TOKENS.admin.value, 'svc_store_healthy'), 1);
  assert.is(await metricValue(s, TOKENS.admin.value, 'svc_broker_drops_total{surface="sse"}'), 0);
  assert.is(await metricValue(s, TOKENS.admin.value, 'svc_broker_drops_total{surface="attach"}'), 0);
  assert.not.match(r.text, /svc_relay_frames_total\{/, 'no relay activity without pairings');
});

t('svc_store_data_bytes follows what the sqlite store holds: it grows as messages are stored', async ({ s }) => {
  const before = (await metricValue(s, TOKENS.admin.value, 'svc_store_data_bytes')) ?? 0;
  assert.ok(before > 0, `an open database holds pages (${before})`);
  const text = 'held '.repeat(2000);
  for (let i = 0; i < 20; i++) {
    const r = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'general' }, from: { type: 'human', id: 'operator' }, parts: [{ kind: 'text', text }] },
      TOKENS.admin.value,
    );
    assert.is(r.status, 200, r.text);
  }
  const after = (await metricValue(s, TOKENS.admin.value, 'svc_store_data_bytes')) ?? 0;
  assert.ok(after - before >= 20 * text.length, `20 messages of ${text.length} bytes grew it by ${after - before}`);
});

t('counts HTTP requests by route pattern and status, never by raw path or token', async ({ s }) => {
  await s.get('/v1/rooms/general', TOKENS.observer.value);
  await s.get('/v1/rooms/nowhere', TOKENS.observer.value);
  await s.get('/v1/rooms/general', 'tok-secret-looking-value');
  const r = await s.get('/metrics', TOKENS.admin.value);
  assert.match(r.text, 'svc_http_requests_total{route="/v1/rooms/:room_id",method="GET",status="200"}');
  assert.match(r.text, 'svc_http_requests_total{route="/v1/rooms/:room_id",method="GET",status="404"}');
  assert.match(r.text, 'svc_http_requests_total{route="/v1/rooms/:room_id",method="GET",status="401"}');
  assert.match(r.text, 'svc_http_request_duration_seconds_bucket{le="0.005",route="/v1/rooms/:room_id",method="GET"}');
  assert.not.match(r.text, 'nowhere');
  for (const tok of [...Object.values(TOKENS).map((x) => x.value), 'tok-secret-looking-value']) assert.not.match(r.text, tok);
});

t('follows open SSE streams and attachments', async ({ s }) => {
  const sse = await SseClient.open(s, { token: TOKENS.observer.value });
  const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'alpha' } }, { token: TOKENS.alphaOnly.value });
  assert.is(await metricValue(s, TOKENS.admin.value, 'svc_sse_subscribers'), 1);
  assert.is(await metricValue(s, TOKENS.admin.value, 'svc_attach_clients'), 1);
  const before = (await metricValue(s, TOKENS.admin.value, 'svc_events_published_total')) ?? 0;
  const sent = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'general' }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text: 'count me' }] },
    TOKENS.admin.value,
  );
  assert.is(sent.status, 200, sent.text);
  // A send answers after its event is published.
  const after = (await metricValue(s, TOKENS.admin.value, 'svc_events_published_total')) ?? 0;
  assert.ok(after >= before + 1, `published ${before} -> ${after}`);
  sse.close();
  await c.close();
  const settled = async () => {
    for (let i = 0; i < 100; i++) {
      if (
        (await metricValue(s, TOKENS.admin.value, 'svc_sse_subscribers')) === 0 &&
        (await metricValue(s, TOKENS.admin.value, 'svc_attach_clients')) === 0
      )
        return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  };
  assert.ok(await settled(), 'gauges return to zero');
});

t.run();
