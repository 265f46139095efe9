// Files through the MCP tools (#41 part 5), over stdio (`svc mcp`) and over /v1/mcp: send_file
// with a small file inline, a larger one through a one-time upload URL (works once, no other
// credential), the inline limit refused with what to do instead, and read_messages listing a
// message's files with a download URL that the agent's token reads.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMcp, type McpSession } from '../helpers/mcp.js';
import { connectMcpHttp } from '../helpers/mcp-http.js';
import { startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { MCP_INLINE_FILE_BYTES } from '../../src/mcp/files.js';

const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };

interface Ctx {
  s: TestServer;
  dir: string;
  m: McpSession;
}

const t = suite<Ctx>('files through the MCP tools');

t.before(async (ctx) => {
  ctx.s = await startServer({
    config: {
      store: { backend: 'memory' },
      auth: {
        tokens: [
          ...Object.values(TOKENS).map((x) => ({ ...x, scopes: [...x.scopes], ...('agents' in x ? { agents: [...x.agents] } : {}) })),
          BETA,
        ],
      },
      rooms: [{ id: 'general', members: ['alpha', 'beta'] }],
    },
  });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-mcp-files-'));
  ctx.m = await startMcp(['--url', ctx.s.url, '--agent', 'beta', '--state-dir', path.join(ctx.dir, 'state')], { SVC_TOKEN: BETA.value });
  await ctx.m.waitFor(/attached as beta/);
});
t.after(async (ctx) => {
  await ctx.m?.close();
  await ctx.s?.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const lastFilePart = async (s: TestServer): Promise<Json> => {
  const ms = (await s.get('/v1/rooms/general/messages', TOKENS.admin.value)).body.messages;
  return ms[ms.length - 1].parts.find((p: Json) => p.kind === 'file');
};

t('send_file sends a small file inline, and read_messages lists it with a download URL the agent reads', async ({ s, m }) => {
  const content = 'a small report\n';
  const r = await m.call('send_file', {
    room_id: 'general',
    name: 'report.md',
    content_type: 'text/markdown',
    content_base64: Buffer.from(content).toString('base64'),
    text: 'the report',
  });
  assert.not.ok(r.isError, r.text);
  assert.match(r.text, /^sent \S+ with file file_\S+ \(report\.md\) to room general/);
  const part = await lastFilePart(s);
  assert.equal(
    { ...part, file_id: undefined },
    { kind: 'file', file_id: undefined, name: 'report.md', content_type: 'text/markdown', size: content.length },
  );

  const read = await m.call('read_messages', { room_id: 'general' });
  const url = `${s.url}/v1/files/${part.file_id}`;
  assert.ok(read.text.includes(`  file report.md (text/markdown, ${content.length} bytes): ${url}`), read.text);
  const view = (read.structuredContent as Json).messages.at(-1);
  assert.equal(view.files, [
    { file_id: part.file_id, name: 'report.md', content_type: 'text/markdown', size: content.length, download_url: url },
  ]);
  const got = await fetch(url, { headers: { authorization: `Bearer ${BETA.value}` } });
  assert.is(got.status, 200);
  assert.is(await got.text(), content);
});

t('a file over the inline limit is refused with how to send it instead', async ({ m }) => {
  const r = await m.call('send_file', {
    room_id: 'general',
    name: 'big.bin',
    content_base64: Buffer.alloc(MCP_INLINE_FILE_BYTES + 1).toString('base64'),
  });
  assert.ok(r.isError);
  assert.match(r.text, /create_upload_url/);
});

t('a larger file goes through a one-time upload URL, which works once and needs no other credential', async ({ s, m }) => {
  const u = await m.call('create_upload_url', { name: 'data.csv', content_type: 'text/csv' });
  assert.not.ok(u.isError, u.text);
  const url = (u.structuredContent as Json).upload_url as string;
  assert.match(url, new RegExp(`^${s.url}/v1/files/uploads/[A-Za-z0-9_-]{20,}$`));
  const bytes = Buffer.alloc(MCP_INLINE_FILE_BYTES * 2, 'a,b\n');
  const put = await fetch(url, { method: 'PUT', body: bytes });
  assert.is(put.status, 201, `${put.status} ${await put.clone().text()}`);
  const stored = (await put.json()) as Json;
  assert.is(stored.size, bytes.length);
  assert.is(stored.name, 'data.csv');
  assert.is(stored.content_type, 'text/csv');
  const again = await fetch(url, { method: 'PUT', body: 'other bytes' });
  assert.is(again.status, 404, 'a URL works once');

  const r = await m.call('send_file', { room_id: 'general', name: 'data.csv', file_id: stored.file_id });
  assert.not.ok(r.isError, r.text);
  const part = await lastFilePart(s);
  assert.is(part.file_id, stored.file_id);
  assert.is(part.size, bytes.length);
});

t('/v1/mcp sends a file inline and lists files with download URLs too', async ({ s }) => {
  const http = await connectMcpHttp(s.url, BETA.value);
  try {
    const r = await http.call('send_file', {
      room_id: 'general',
      name: 'note.txt',
      content_base64: Buffer.from('over http').toString('base64'),
    });
    assert.not.ok(r.isError, r.text);
    const part = await lastFilePart(s);
    assert.is(part.name, 'note.txt');
    const read = await http.call('read_messages', { room_id: 'general' });
    assert.ok(read.text.includes(`/v1/files/${part.file_id}`), read.text);
  } finally {
    await http.close();
  }
});

t.run();
