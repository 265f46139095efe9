// Bad requests get the spec's envelope and status with the field path: never a crash, a hang or
// a stack trace.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { TOKENS, roomMessage, type Res } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function assertEnvelope(r: Res, status: number, code: string): void {
  assert.is(r.status, status, r.text);
  assert.equal(Object.keys(r.body).sort(), ['code', 'error', 'request_id']);
  assert.is(r.body.code, code);
  assert.type(r.body.error, 'string');
  assert.ok(r.body.error.length > 0);
  assert.is(r.body.request_id, r.headers.get('x-request-id'));
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.not.match(r.text, /\n\s+at |node:internal|\.ts:\d+/);
}

const post = (s: AppServer, p: string, raw: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  s.req('POST', p, { token: ADMIN, raw, headers });

/** A POST whose body is streamed in chunks without a content-length. */
function postChunked(s: AppServer, p: string, chunks: number, chunkSize: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${s.url}${p}`,
      { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    // A reset before any response is a failure of the test, not a hang.
    req.on('error', reject);
    const chunk = Buffer.alloc(chunkSize, 0x20);
    let i = 0;
    const pump = () => {
      while (i < chunks) {
        i++;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const t = suite<{ s: AppServer }>('bad requests');
t.before(async (c) => {
  c.s = await startApp({ config: { rooms: [{ id: 'general', members: ['ops'] }] } });
});
t.after(async (c) => c.s?.dispose());

t('malformed JSON is a 400 bad_request naming the body', async ({ s }) => {
  for (const raw of ['{', '{"target":', 'not json', '{"a":1}}', "{'a':1}"]) {
    const r = await post(s, '/v1/messages', raw);
    assertEnvelope(r, 400, 'bad_request');
    assert.match(r.body.error, /^body: /, raw);
  }
});

t('an empty body or one that is not exactly one JSON object is a 400', async ({ s }) => {
  for (const raw of ['', '[]', '[{}]', '"text"', '42', 'null', 'true']) {
    const r = await post(s, '/v1/rooms', raw);
    assertEnvelope(r, 400, 'bad_request');
    assert.match(r.body.error, /^body: /, JSON.stringify(raw));
  }
});

t('a body that is not UTF-8 is a 400', async ({ s }) => {
  const r = await post(s, '/v1/rooms', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
  assertEnvelope(r, 400, 'bad_request');
});

t('a schema violation is a 400 with the field path in the error', async ({ s }) => {
  const cases: [unknown, RegExp][] = [
    [
      { ...roomMessage('general', 'ops', 'x'), parts: [{ kind: 'video' }] },
      /^body\.parts\[0\]\.kind: must be one of text, url, data, file, image, audio/,
    ],
    [
      { ...roomMessage('general', 'ops', 'x'), parts: [{ kind: 'text', text: 'ok' }, { kind: 'text' }] },
      /^body\.parts\[1\]\.text: is required/,
    ],
    [{ ...roomMessage('general', 'ops', 'x'), parts: [{ kind: 'url' }] }, /^body\.parts\[0\]\.url: is required/],
    [{ ...roomMessage('general', 'ops', 'x'), parts: [] }, /^body\.parts: must have at least 1 item/],
    [{ ...roomMessage('general', 'ops', 'x'), parts: 'hi' }, /^body\.parts: must be a list/],
    [{ target: { kind: 'room', room_id: 'general' }, parts: [{ kind: 'text', text: 'x' }] }, /^body\.from: is required/],
    [{ ...roomMessage('general', 'ops', 'x'), from: { type: 'agent' } }, /^body\.from\.id: is required/],
    [{ ...roomMessage('general', 'ops', 'x'), target: { kind: 'room' } }, /^body\.target\.room_id: is required/],
    [
      { ...roomMessage('general', 'ops', 'x'), target: { kind: 'channel', room_id: 'general' } },
      /^body\.target\.kind: must be one of room, thread, dm/,
    ],
    [{ ...roomMessage('general', 'ops', 'x'), mentions: 'alpha' }, /^body\.mentions: must be a list/],
    [{ ...roomMessage('general', 'ops', 'x'), parts: [{ kind: 'data', data: [1] }] }, /^body\.parts\[0\]\.data: must be an object/],
  ];
  for (const [body, re] of cases) {
    const r = await s.post('/v1/messages', body, ADMIN);
    assertEnvelope(r, 400, 'bad_request');
    assert.match(r.body.error, re);
  }
  const room = await s.post('/v1/rooms', { id: 'x', members: 'alpha' }, ADMIN);
  assertEnvelope(room, 400, 'bad_request');
  assert.match(room.body.error, /^body\.members: must be a list/);
  const reg = await s.post('/v1/agents/register', { name: 7 }, ADMIN);
  assertEnvelope(reg, 400, 'bad_request');
  assert.match(reg.body.error, /^body\.name: must be a string/);
  const mem = await s.req('PATCH', '/v1/rooms/general/members', { token: ADMIN, body: { add: [1] } });
  assertEnvelope(mem, 400, 'bad_request');
  assert.match(mem.body.error, /^body\.add\[0\]: must be a string/);
});

t('unknown fields are ignored', async ({ s }) => {
  const r = await s.post('/v1/rooms', { id: 'extra', future_field: { nested: true }, name: 'Extra' }, ADMIN);
  assert.is(r.status, 200, r.text);
  assert.is(r.body.future_field, undefined);
  const m = await s.post('/v1/messages', { ...roomMessage('general', 'ops', 'x'), v2_hint: 1 }, ADMIN);
  assert.is(m.status, 200, m.text);
});

t('a body over 1 MiB is a 413 payload_too_large, declared or streamed', async ({ s }) => {
  const big = JSON.stringify({ ...roomMessage('general', 'ops', 'x'.repeat(1024 * 1024)) });
  assertEnvelope(await post(s, '/v1/messages', big), 413, 'payload_too_large');
  const streamed = await postChunked(s, '/v1/messages', 40, 32 * 1024);
  assert.is(streamed.status, 413, streamed.body);
  assert.is(JSON.parse(streamed.body).code, 'payload_too_large');
  // Just under the limit is read (and then judged on its content).
  const justUnder = JSON.stringify(roomMessage('general', 'ops', 'y'.repeat(1024 * 1024 - 200)));
  assert.ok(Buffer.byteLength(justUnder) <= 1024 * 1024);
  assert.is((await post(s, '/v1/messages', justUnder)).status, 200);
  // The server is still healthy afterwards.
  assert.is((await s.get('/healthz')).status, 200);
});

t('an unsupported method on a known path is a 405 with Allow', async ({ s }) => {
  const cases: [string, string, string[]][] = [
    ['PUT', '/v1/rooms', ['GET', 'POST']],
    ['DELETE', '/v1/messages', ['POST']],
    ['POST', '/v1/rooms/general', ['DELETE', 'GET']],
    ['GET', '/v1/apply', ['POST']],
    ['PATCH', '/v1/agents/alpha', ['DELETE', 'GET']],
  ];
  for (const [m, p, allow] of cases) {
    const r = await s.req(m, p, { token: ADMIN });
    assertEnvelope(r, 405, 'method_not_allowed');
    assert.equal((r.headers.get('allow') ?? '').split(/,\s*/).sort(), allow, `${m} ${p}`);
  }
});

t('an unknown path is a 404 not_found envelope', async ({ s }) => {
  for (const p of ['/v1', '/v1/nothing', '/v1/rooms/general/nothing', '/v2/rooms', '/v1/rooms/general/messages/extra']) {
    assertEnvelope(await s.get(p, ADMIN), 404, 'not_found');
  }
});

t('a valid X-Request-Id is echoed in the header and in error bodies', async ({ s }) => {
  const ok = await s.req('GET', '/healthz', { headers: { 'x-request-id': 'trace-123.abc' } });
  assert.is(ok.headers.get('x-request-id'), 'trace-123.abc');
  const bad = await s.req('GET', '/v1/rooms/nope', { token: ADMIN, headers: { 'x-request-id': 'trace-456' } });
  assert.is(bad.headers.get('x-request-id'), 'trace-456');
  assert.is(bad.body.request_id, 'trace-456');
});

t('without a usable X-Request-Id the server assigns one', async ({ s }) => {
  const a = await s.get('/v1/rooms/nope', ADMIN);
  assert.match(a.body.request_id, REQUEST_ID);
  const b = await s.req('GET', '/v1/rooms/nope', { token: ADMIN, headers: { 'x-request-id': 'has spaces and <html>' } });
  assert.match(b.body.request_id, REQUEST_ID);
  assert.is.not(b.body.request_id, 'has spaces and <html>');
  assert.is.not(a.body.request_id, b.body.request_id);
});

t('errors never echo the presented token', async ({ s }) => {
  const token = 'tok-secret-value-should-not-appear';
  const r = await s.req('GET', '/v1/rooms', { token });
  assertEnvelope(r, 401, 'unauthorized');
  assert.not.ok(r.text.includes(token));
  assert.not.ok(s.output().includes(token));
});

t('HEAD on a GET route answers without a body', async ({ s }) => {
  const r = await s.req('HEAD', '/v1/rooms', { token: ADMIN });
  assert.is(r.status, 200);
  assert.is(r.text, '');
});

t('a malformed percent-encoding in a path is a 404, not a crash', async ({ s }) => {
  assertEnvelope(await s.get('/v1/rooms/%E0%A4%A', ADMIN), 404, 'not_found');
  assert.is((await s.get('/healthz')).status, 200);
});

t.run();
