// The upload limits (#41 part 1): server.limits.file_bytes refused with 413 from Content-Length
// before any byte is read, and as soon as an undeclared (chunked) body passes it; a stalled body
// answered 408 after server.limits.body_seconds without a byte; per-credential uploads per minute
// and bytes per day answered 429. No refused upload leaves a byte behind (the spool folder is empty).

import http from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AppServer, startApp } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';
import { upload } from './helpers.js';

const LIMIT = 4096;

/** A raw upload request written by hand: `chunks` sent with `gapMs` between them, chunked unless `length` is declared. */
function rawUpload(
  url: string,
  token: string,
  chunks: Buffer[],
  o: { length?: number; gapMs?: number } = {},
): Promise<{ status: number; body: { code?: string; error?: string } }> {
  return new Promise((resolve, reject) => {
    const u = new URL(`${url}/v1/files?name=x.bin`);
    const req = http.request(
      {
        method: 'POST',
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          ...(o.length !== undefined ? { 'content-length': String(o.length) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text || '{}') }));
      },
    );
    // The server may answer (and close) before the body is all sent: that is the point.
    req.on('error', (err) => (err.message.includes('EPIPE') || err.message.includes('ECONNRESET') ? undefined : reject(err)));
    (async () => {
      for (const c of chunks) {
        if (req.destroyed) return;
        req.write(c);
        if (o.gapMs) await new Promise((r) => setTimeout(r, o.gapMs));
      }
      if (o.length === undefined || chunks.reduce((n, c) => n + c.length, 0) >= o.length) req.end();
    })();
  });
}

const test = suite('upload limits');
let s: AppServer;
let n = 0;
/** A fresh agent token: each test's uploads count against a credential of its own. */
const fresh = async () => String((await claimThenJoin(s, `up${++n}`, [])).body.agent_token);
const spoolEmpty = () => {
  const dir = path.join(s.dir, '.svc/files/tmp');
  return !existsSync(dir) || readdirSync(dir).length === 0;
};

test.before(async () => {
  s = await startApp({
    config: {
      auth: { agent_registration: 'open' },
      server: { limits: { file_bytes: LIMIT, body_seconds: 1, file_uploads_per_minute: 3, file_bytes_per_day: 3 * LIMIT } },
    },
  });
});
test.after(async () => {
  await s.dispose();
});

test('a declared body over file_bytes is refused at once with 413', async () => {
  const t = await fresh();
  // Only the first bytes are ever sent: the answer comes from the header.
  const r = await rawUpload(s.url, t, [Buffer.alloc(100)], { length: LIMIT + 1 });
  assert.is(r.status, 413);
  assert.is(r.body.code, 'payload_too_large');
  assert.ok(spoolEmpty());
  const ok = await upload(s, Buffer.alloc(LIMIT, 1), 'max.bin', t);
  assert.is(ok.status, 201, 'exactly the limit is taken');
});

test('an undeclared body is refused with 413 as soon as it passes file_bytes', async () => {
  const t = await fresh();
  const r = await rawUpload(s.url, t, [Buffer.alloc(LIMIT), Buffer.alloc(1024), ...Array.from({ length: 50 }, () => Buffer.alloc(1024))], {
    gapMs: 20,
  });
  assert.is(r.status, 413);
  assert.is(r.body.code, 'payload_too_large');
  assert.ok(spoolEmpty(), 'nothing of it is kept');
});

test('a multipart file over file_bytes is refused with 413', async () => {
  const t = await fresh();
  const form = new FormData();
  form.append('file', new Blob([Buffer.alloc(LIMIT + 10)]), 'big.bin');
  const res = await fetch(`${s.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${t}` }, body: form });
  assert.is(res.status, 413);
  assert.ok(spoolEmpty());
});

test('a stalled upload is answered 408 after body_seconds without a byte', async () => {
  const t = await fresh();
  const r = await rawUpload(s.url, t, [Buffer.alloc(100)], { length: 1000 });
  assert.is(r.status, 408);
  assert.is(r.body.code, 'request_timeout');
  assert.ok(spoolEmpty());
});

test('uploads per minute and bytes per day are limited per credential (429)', async () => {
  const t = await fresh();
  for (let i = 0; i < 3; i++) assert.is((await upload(s, `n${i}`, 'n.txt', t)).status, 201);
  const over = await upload(s, 'n3', 'n.txt', t);
  assert.is(over.status, 429);
  assert.ok(Number(over.headers.get('retry-after')) >= 1);
  assert.match(over.body.error, /file_uploads_per_minute/);
  const other = await fresh();
  assert.is((await upload(s, Buffer.alloc(LIMIT), 'a', other)).status, 201);
  assert.is((await upload(s, Buffer.alloc(LIMIT), 'b', other)).status, 201);
  assert.is((await upload(s, Buffer.alloc(LIMIT), 'c', other)).status, 201);
  const day = await upload(s, 'one more byte', 'd', other);
  assert.is(day.status, 429);
  assert.match(day.body.error, /file_bytes_per_day/);
});

test.run();
