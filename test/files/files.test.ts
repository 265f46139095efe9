// Files end to end (#41 parts 1, 2 and 4) on sqlite and memory, the app in process: uploads (raw
// and multipart), the same bytes kept once, downloads with Range and ETag, the `file` part filled
// from the stored file, and the access rule: a file is readable by exactly those who may read a
// message that references it (and its uploader); anyone else gets the 404 of an id not stored.

import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AppServer, startApp } from '../helpers/app.js';
import { TOKENS } from '../helpers/server.js';
import { type Agents, download, FILE_ROOMS, fileAgents, refusal, sendFile, upload, uploaded, uploadForm } from './helpers.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const MISSING = 'file_00000000000000000000000000';

for (const backend of ['sqlite', 'memory'] as const) {
  const test = suite(`files (${backend})`);
  let s: AppServer;
  let a: Agents;

  test.before(async () => {
    s = await startApp({
      config: { store: { backend }, auth: { agent_registration: 'open' }, rooms: FILE_ROOMS },
    });
    a = await fileAgents(s);
  });
  test.after(async () => {
    await s.dispose();
  });

  test('an upload answers its id, hash, size, type and name; the same bytes are kept once', async () => {
    const bytes = 'hello, files\n';
    const r = await upload(s, bytes, 'dir/../notes.txt', a.ann, 'text/plain; charset=utf-8');
    assert.is(r.status, 201, r.text);
    assert.equal(Object.keys(r.body).sort(), ['content_type', 'file_id', 'name', 'sha256', 'size']);
    assert.match(r.body.file_id, /^file_/);
    assert.equal(
      { sha256: r.body.sha256, size: r.body.size, content_type: r.body.content_type, name: r.body.name },
      { sha256: sha(bytes), size: 13, content_type: 'text/plain; charset=utf-8', name: 'notes.txt' },
    );
    const again = await upload(s, bytes, 'copy.txt', a.bob);
    assert.is(again.status, 201);
    assert.is.not(again.body.file_id, r.body.file_id);
    assert.is(again.body.sha256, r.body.sha256);
    if (backend === 'sqlite') {
      const dir = path.join(s.dir, '.svc/files', sha(bytes).slice(0, 2));
      assert.equal(readdirSync(dir), [sha(bytes)], 'one blob under its hash');
    }
    const got = await download(s, r.body.file_id, a.ann);
    assert.is(got.status, 200);
    assert.is(got.bytes.toString(), bytes);
    assert.is(got.headers.get('content-type'), 'text/plain; charset=utf-8');
  });

  test('a multipart upload takes its file part, with its filename and type', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000', 'hex');
    const r = await uploadForm(s, png, 'shot.png', 'image/png', a.ann);
    assert.is(r.status, 201, r.text);
    assert.equal(
      { name: r.body.name, type: r.body.content_type, size: r.body.size, sha: r.body.sha256 },
      { name: 'shot.png', type: 'image/png', size: png.length, sha: sha(png) },
    );
    const got = await download(s, r.body.file_id, a.ann);
    assert.ok(got.bytes.equals(png));
    assert.match(got.headers.get('content-disposition')!, /^inline; filename="shot.png"/);
  });

  test('a raw upload needs a name; a form needs a file part', async () => {
    const r = await s.req('POST', '/v1/files', { token: a.ann, raw: 'x', headers: { 'content-type': 'text/plain' } });
    assert.is(r.status, 400);
    assert.match(r.body.error, /^query\.name/);
    const form = new FormData();
    form.append('note', 'no file');
    const res = await fetch(`${s.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${a.ann}` }, body: form });
    assert.is(res.status, 400);
    assert.is(((await res.json()) as { code: string }).code, 'bad_request');
  });

  test('an upload is readable by its uploader only until a message references it', async () => {
    const id = await uploaded(s, 'secret draft', 'draft.txt', a.bob);
    assert.is((await download(s, id, a.bob)).status, 200);
    const missing = await refusal(s, MISSING, a.cal);
    assert.equal(missing.status, 404);
    assert.equal(await refusal(s, id, a.cal), missing, 'a file one may not read answers as one that is not there');
    // Nor can a caller who may not read it send it.
    const r = await sendFile(s, a.cal, 'cal', { kind: 'room', room_id: 'pub' }, id);
    assert.is(r.status, 404, r.text);
    assert.match(r.body.error, /^body\.parts\[1\]\.file_id: file /);
  });

  test('a file sent into a public room is readable by its readers; the part is the stored file', async () => {
    const id = await uploaded(s, 'quarterly numbers', 'q3.csv', a.ann, 'text/csv');
    const r = await sendFile(s, a.ann, 'ann', { kind: 'room', room_id: 'pub' }, id, { name: 'lie.exe', size: 1, content_type: 'x/y' });
    assert.is(r.status, 200, r.text);
    const page = await s.get('/v1/rooms/pub/messages', TOKENS.admin.value);
    const m = page.body.messages.find((x: { id: string }) => x.id === r.body.message_id);
    assert.equal(m.parts[1], { kind: 'file', file_id: id, name: 'q3.csv', content_type: 'text/csv', size: 17 });
    assert.is((await download(s, id, a.cal)).status, 200);
    assert.is((await download(s, id, TOKENS.observer.value)).status, 200);
    const unknown = await sendFile(s, a.ann, 'ann', { kind: 'room', room_id: 'pub' }, MISSING);
    assert.is(unknown.status, 404);
    assert.match(unknown.body.error, /^body\.parts\[1\]\.file_id/);
  });

  test('a file in a private room, its thread or a DM is readable by their readers only', async () => {
    const inPriv = await uploaded(s, 'private', 'p.txt', a.bob);
    assert.is((await sendFile(s, a.bob, 'bob', { kind: 'room', room_id: 'priv' }, inPriv)).status, 200);
    const inThread = await uploaded(s, 'threaded', 't.txt', a.bob);
    assert.is((await sendFile(s, a.bob, 'bob', { kind: 'thread', room_id: 'priv', thread_id: 'th1' }, inThread)).status, 200);
    const inDm = await uploaded(s, 'between us', 'dm.txt', a.ann);
    const dm = await sendFile(s, a.ann, 'ann', { kind: 'dm', participant_ids: ['bob'] }, inDm);
    assert.is(dm.status, 200, dm.text);
    const missing = await refusal(s, MISSING, a.cal);
    for (const id of [inPriv, inThread, inDm]) assert.equal(await refusal(s, id, a.cal), missing, `cal may not read ${id}`);
    for (const id of [inPriv, inThread, inDm]) assert.is((await download(s, id, a.bob)).status, 200, `bob reads ${id}`);
    assert.equal(await refusal(s, inPriv, a.ann), missing, 'ann is not in priv');
    assert.is((await download(s, inDm, a.ann)).status, 200);
  });

  test("an edit that adds a file part makes the file readable by the message's readers", async () => {
    const sent = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'pub' }, from: { type: 'agent', id: 'ann' }, parts: [{ kind: 'text', text: 'soon' }] },
      a.ann,
    );
    assert.is(sent.status, 200, sent.text);
    const id = await uploaded(s, 'added later', 'later.txt', a.ann, 'text/plain');
    assert.is((await download(s, id, a.cal)).status, 404);
    const edited = await s.req('PATCH', `/v1/messages/${sent.body.message_id}`, {
      token: a.ann,
      body: {
        parts: [
          { kind: 'text', text: 'here' },
          { kind: 'file', file_id: id },
        ],
      },
    });
    assert.is(edited.status, 200, edited.text);
    assert.equal(edited.body.parts[1], { kind: 'file', file_id: id, name: 'later.txt', content_type: 'text/plain', size: 11 });
    assert.is((await download(s, id, a.cal)).status, 200);
    const refused = await s.req('PATCH', `/v1/messages/${sent.body.message_id}`, {
      token: a.ann,
      body: { parts: [{ kind: 'file', file_id: MISSING }] },
    });
    assert.is(refused.status, 404);
    assert.match(refused.body.error, /^body\.parts\[0\]\.file_id/);
  });

  test('Range, ETag and If-None-Match; HEAD answers the headers', async () => {
    const body = '0123456789';
    const id = await uploaded(s, body, 'digits.txt', a.ann, 'text/plain');
    const etag = `"${sha(body)}"`;
    const part = await download(s, id, a.ann, { range: 'bytes=2-5' });
    assert.is(part.status, 206);
    assert.is(part.bytes.toString(), '2345');
    assert.is(part.headers.get('content-range'), 'bytes 2-5/10');
    const tail = await download(s, id, a.ann, { range: 'bytes=-3' });
    assert.is(tail.bytes.toString(), '789');
    const open = await download(s, id, a.ann, { range: 'bytes=7-' });
    assert.is(open.bytes.toString(), '789');
    const past = await download(s, id, a.ann, { range: 'bytes=10-' });
    assert.is(past.status, 416);
    assert.is(past.headers.get('content-range'), 'bytes */10');
    const whole = await download(s, id, a.ann);
    assert.is(whole.headers.get('etag'), etag);
    assert.is(whole.headers.get('accept-ranges'), 'bytes');
    assert.is((await download(s, id, a.ann, { 'if-none-match': etag })).status, 304);
    const head = await download(s, id, a.ann, {}, 'HEAD');
    assert.is(head.status, 200);
    assert.is(head.headers.get('content-length'), '10');
    assert.is(head.bytes.length, 0);
  });

  test('an uploaded HTML or SVG is an attachment that cannot run: nosniff and a sandboxing CSP', async () => {
    for (const [name, type] of [
      ['page.html', 'text/html'],
      ['logo.svg', 'image/svg+xml'],
    ]) {
      const id = await uploaded(s, '<script>alert(1)</script>', name!, a.ann, type);
      const r = await download(s, id, a.ann);
      assert.is(r.status, 200);
      assert.match(r.headers.get('content-disposition')!, new RegExp(`^attachment; filename="${name!.replace('.', '\\.')}"`));
      assert.is(r.headers.get('x-content-type-options'), 'nosniff');
      assert.match(r.headers.get('content-security-policy')!, /^sandbox; default-src 'none'/);
    }
  });

  test.run();
}
