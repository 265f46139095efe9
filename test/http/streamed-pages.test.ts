// Pages of messages (history, search) are written as they go, one message at a time, waiting for
// the socket to drain: the text is exactly JSON.stringify's, a page is never built as one string,
// and a reader that stops reading holds the writer back instead of filling the server's memory.

import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendJsonStreamed } from '../../src/http/respond.js';
import { TOKENS } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';

/** A server on 127.0.0.1 whose every answer is `body`, streamed; `finished` settles when the write ends. */
async function streaming(body: Record<string, unknown>): Promise<{ port: number; finished: () => boolean; close: () => Promise<void> }> {
  let done = false;
  const server = http.createServer((_req, res) => {
    void sendJsonStreamed(res, 200, body).then(() => (done = true));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    finished: () => done,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const u = suite('sendJsonStreamed');

u('writes the same text as JSON.stringify for arrays, scalars, nesting and undefined fields', async () => {
  const big = Array.from({ length: 300 }, (_, i) => ({ id: `m${i}`, text: 'z'.repeat(1000) }));
  const bodies: Record<string, unknown>[] = [
    {},
    { messages: [] },
    { messages: [{ id: 'm1', parts: [{ kind: 'text', text: 'a "quoted" ✓ line\n' }] }, { id: 'm2' }], page: { has_more: false } },
    { hits: [1, 'two', null, [3]], total: 4, skipped: undefined, nested: { a: [1, 2] } },
    { a: [undefined, 1] },
    { messages: big, page: { has_more: true, next_before: 'm0' } },
  ];
  for (const body of bodies) {
    const s = await streaming(body);
    try {
      const r = await fetch(`http://127.0.0.1:${s.port}/`);
      const text = JSON.stringify(body);
      // Under one piece (64 KiB) a body goes out whole with its length; a larger one in chunks.
      if (text.length < 64 * 1024) assert.is(r.headers.get('content-length'), String(Buffer.byteLength(text)));
      else assert.is(r.headers.get('transfer-encoding'), 'chunked');
      assert.is(await r.text(), text);
    } finally {
      await s.close();
    }
  }
});

u('a reader that stops reading holds the writer back, and going away ends it', async () => {
  const big = 'x'.repeat(256 * 1024);
  const s = await streaming({ messages: Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, text: big })) });
  try {
    const socket = net.connect(s.port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.pause();
    socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 500));
    // 50 MB to write; the kernel's buffers take a few MB at most: the writer must be waiting.
    assert.is(s.finished(), false, 'the whole page was written into memory for a reader that reads nothing');
    socket.destroy();
    for (let i = 0; i < 100 && !s.finished(); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(s.finished(), 'the writer stopped when the reader went away');
  } finally {
    await s.close();
  }
});

u.run();

const t = suite('history and search pages on a real server');

t('history and search answer chunked JSON that parses to the page', async () => {
  const s = await startApp({
    config: { auth: { public_read: true }, rooms: [{ id: 'general', name: 'General', visibility: 'public' }] },
  });
  try {
    for (let i = 0; i < 6; i++) {
      const r = await s.post(
        '/v1/messages',
        {
          target: { kind: 'room', room_id: 'general' },
          from: { type: 'human', id: 'op' },
          parts: [{ kind: 'text', text: `needle ${i} ${'y'.repeat(300 * 1024)}` }],
        },
        TOKENS.admin.value,
      );
      assert.is(r.status, 200, r.text);
    }
    for (const path of ['/v1/rooms/general/messages?limit=10', '/v1/search?q=needle&limit=10']) {
      const r = await fetch(`${s.url}${path}`);
      assert.is(r.status, 200);
      assert.is(r.headers.get('transfer-encoding'), 'chunked', path);
      const body = (await r.json()) as { messages?: unknown[]; hits?: unknown[] };
      assert.is((body.messages ?? body.hits)!.length, 6, path);
    }
  } finally {
    await s.stop();
  }
});

t.run();
