// A file's life (#41 parts 2 and 8): an upload no message references is removed once it is older
// than server.files.unreferenced_ttl; a file messages reference stays while one of them remains,
// and goes with its blob once the last one is deleted, redacted or purged by retention. A blob two
// files share stays until neither is left.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AppServer, startApp } from '../helpers/app.js';
import { eventually, TOKENS } from '../helpers/server.js';
import { type Agents, download, FILE_ROOMS, fileAgents, sendFile, uploaded } from './helpers.js';

const ADMIN = TOKENS.admin.value;
const sha = (b: string) => createHash('sha256').update(b).digest('hex');

for (const backend of ['sqlite', 'memory'] as const) {
  const test = suite(`a file's lifecycle (${backend})`);
  let s: AppServer;
  let a: Agents;
  /** Whether the blob of `content` is still kept (sqlite: its file under .svc/files; memory: a download of a file naming it). */
  const blobOnDisk = (content: string) => existsSync(path.join(s.dir, '.svc/files', sha(content).slice(0, 2), sha(content)));
  const gone = (id: string, token: string) =>
    eventually(async () => (await download(s, id, token)).status === 404, 10_000, `${id} removed`);

  test.before(async () => {
    s = await startApp({
      env: { SVC_RETENTION_INTERVAL_MS: '200' },
      config: {
        store: { backend },
        auth: { agent_registration: 'open' },
        server: { files: { unreferenced_ttl: '2s' } },
        rooms: [...FILE_ROOMS, { id: 'short', name: 'Short', visibility: 'public', retention: { max_messages: 1 } }],
      },
    });
    a = await fileAgents(s);
    const joined = await s.req('PATCH', '/v1/rooms/short/members', { token: ADMIN, body: { add: ['ann'] } });
    assert.is(joined.status, 200, joined.text);
  });
  test.after(async () => {
    await s.dispose();
  });

  test('an upload no message references expires after unreferenced_ttl, blob and all', async () => {
    const content = `never sent ${backend}`;
    const id = await uploaded(s, content, 'draft.txt', a.ann);
    assert.is((await download(s, id, a.ann)).status, 200, 'readable by its uploader meanwhile');
    if (backend === 'sqlite') assert.ok(blobOnDisk(content));
    await gone(id, a.ann);
    if (backend === 'sqlite') await eventually(() => !blobOnDisk(content), 5000, 'its blob removed');
  });

  test('a sent file outlives the TTL; it goes when the last message referencing it is deleted', async () => {
    const content = `shared twice ${backend}`;
    const id = await uploaded(s, content, 'twice.txt', a.ann);
    const m1 = await sendFile(s, a.ann, 'ann', { kind: 'room', room_id: 'pub' }, id);
    const m2 = await sendFile(s, a.ann, 'ann', { kind: 'room', room_id: 'pub' }, id);
    assert.is(m1.status, 200, m1.text);
    assert.is(m2.status, 200, m2.text);
    // Well past the TTL: referenced files are never collected.
    await new Promise((r) => setTimeout(r, 2500));
    assert.is((await download(s, id, a.cal)).status, 200);
    const del = await s.req('DELETE', `/v1/messages/${m1.body.message_id}`, { token: a.ann, body: { from: { type: 'agent', id: 'ann' } } });
    assert.is(del.status, 200, del.text);
    await new Promise((r) => setTimeout(r, 600));
    assert.is((await download(s, id, a.cal)).status, 200, 'kept while another message references it');
    if (backend === 'sqlite') assert.ok(blobOnDisk(content));
    const redact = await s.post(`/v1/messages/${m2.body.message_id}/redact`, {}, ADMIN);
    assert.is(redact.status, 200, redact.text);
    await gone(id, ADMIN);
    if (backend === 'sqlite') await eventually(() => !blobOnDisk(content), 5000, 'its blob gone with the last reference');
  });

  test('a recent file whose only message is deleted goes at once, not unreferenced_ttl after its upload', async () => {
    // A server with the default TTL (1h): only the delete can make the file go within the test.
    const own = await startApp({ config: { store: { backend }, auth: { agent_registration: 'open' }, rooms: FILE_ROOMS } });
    try {
      const t = await fileAgents(own);
      const content = `deleted soon ${backend}`;
      const r = await own.req('POST', '/v1/files?name=soon.txt', { token: t.ann, raw: content });
      assert.is(r.status, 201, r.text);
      const m = await sendFile(own, t.ann, 'ann', { kind: 'room', room_id: 'pub' }, r.body.file_id);
      assert.is(m.status, 200, m.text);
      const del = await own.req('DELETE', `/v1/messages/${m.body.message_id}`, {
        token: t.ann,
        body: { from: { type: 'agent', id: 'ann' } },
      });
      assert.is(del.status, 200, del.text);
      await eventually(async () => (await download(own, r.body.file_id, ADMIN)).status === 404, 10_000, 'the file removed');
      if (backend === 'sqlite')
        await eventually(
          () => !existsSync(path.join(own.dir, '.svc/files', sha(content).slice(0, 2), sha(content))),
          5000,
          'its blob removed',
        );
    } finally {
      await own.dispose();
    }
  });

  test('a blob two files share stays until both are gone', async () => {
    const content = `same bytes ${backend}`;
    const kept = await uploaded(s, content, 'kept.txt', a.ann);
    const sent = await sendFile(s, a.ann, 'ann', { kind: 'room', room_id: 'pub' }, kept);
    assert.is(sent.status, 200);
    const dropped = await uploaded(s, content, 'dropped.txt', a.bob);
    await gone(dropped, a.bob);
    const got = await download(s, kept, a.cal);
    assert.is(got.status, 200);
    assert.is(got.bytes.toString(), content, 'the shared blob is still there');
  });

  test("retention's purge of the last message referencing a file removes it", async () => {
    const id = await uploaded(s, `purged ${backend}`, 'purged.txt', a.ann);
    assert.is((await sendFile(s, a.ann, 'ann', { kind: 'room', room_id: 'short' }, id)).status, 200);
    // The room keeps its newest message: a second one purges the first.
    const next = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'short' }, from: { type: 'agent', id: 'ann' }, parts: [{ kind: 'text', text: 'newer' }] },
      a.ann,
    );
    assert.is(next.status, 200, next.text);
    await gone(id, ADMIN);
  });

  test.run();
}
