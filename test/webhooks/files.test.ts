// A webhook delivery of a message with a file (#41 part 5): the file's metadata and an
// authenticated download URL (GET /v1/files/{id} on the server, read with a token that may read
// the message), never the bytes.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, TOKENS } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';
import { startReceiver } from './receiver.js';

const SECRET = `whsec_${Buffer.from('a test signing key of 32 bytes!!').toString('base64')}`;
const admin = TOKENS.admin.value;
const test = suite('webhook deliveries of files');

test('a message with a file is delivered with its metadata and download URL, never its bytes', async () => {
  const rx = await startReceiver();
  const s = await startApp({
    config: {
      rooms: [{ id: 'ops', members: ['bot'] }],
      webhooks: [{ id: 'out', url: rx.url, events: ['message.created'], secret_env: 'HOOK_SECRET', allow_private_network: true }],
    },
    env: { HOOK_SECRET: SECRET, SVC_WEBHOOK_POLL_MS: '100' },
  });
  try {
    await eventually(async () => (await s.get('/v1/webhooks', admin)).body.webhooks[0].cursor !== null, 10_000, 'webhook cursor');
    const secret = 'the secret bytes of the file, never in a delivery';
    const up = await s.req('POST', '/v1/files?name=report.txt', { token: admin, raw: secret, headers: { 'content-type': 'text/plain' } });
    assert.is(up.status, 201, up.text);
    const sent = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'ops' }, from: { type: 'agent', id: 'bot' }, parts: [{ kind: 'file', file_id: up.body.file_id }] },
      admin,
    );
    assert.is(sent.status, 200, sent.text);
    await eventually(() => rx.received.length > 0, 10_000, 'a delivery');
    const body = rx.received[0]!.body;
    assert.not.ok(body.includes(secret), 'the bytes never ride in a delivery');
    assert.not.ok(body.includes(Buffer.from(secret).toString('base64')), 'not even in base64');
    const part = JSON.parse(body).data.message.parts[0];
    assert.equal(part, {
      kind: 'file',
      file_id: up.body.file_id,
      name: 'report.txt',
      content_type: 'text/plain',
      size: Buffer.byteLength(secret),
      download_url: `${s.url}/v1/files/${up.body.file_id}`,
    });
    // The URL is authenticated: nothing without a token, the bytes with one that may read the room.
    const anon = await fetch(part.download_url);
    assert.is(anon.status, 401);
    const got = await fetch(part.download_url, { headers: { authorization: `Bearer ${admin}` } });
    assert.is(got.status, 200);
    assert.is(await got.text(), secret);
  } finally {
    await s.dispose();
    await rx.close();
  }
});

test.run();
