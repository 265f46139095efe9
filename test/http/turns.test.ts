// Requests that arrive together past one event-loop iteration's budget (src/http/turns.ts) wait for
// later iterations and are all answered and stored: bodies read late (one of 300 KB), uploads cut
// off while they waited, and the count of waits in /metrics.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { eventually, roomMessage, TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { metricValue } from '../helpers/live.js';

const test = suite<{ s: AppServer }>('request turns');
test.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'burst', members: ['alpha'] }] } });
});
test.after(async (ctx) => ctx.s.dispose());

const connect = (port: number) =>
  new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

/** Everything the server sends until it closes the connection. */
const answerOf = (s: net.Socket) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('close', () => resolve(Buffer.concat(chunks).toString()));
    s.on('error', () => undefined);
  });

function request(body: string): string {
  return (
    `POST /v1/messages HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKENS.alphaOnly.value}\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

test('sixty sends arriving at once are all answered and stored, in more than one iteration', async ({ s }) => {
  const before = (await metricValue(s, TOKENS.admin.value, 'svc_http_requests_waited_total')) ?? 0;
  const sockets = await Promise.all(Array.from({ length: 64 }, () => connect(s.port)));
  const answers = sockets.map(answerOf);
  // Every connection accepted (and read from) before the requests are written, as a client's kept-alive ones are.
  await eventually(
    () => new Promise<boolean>((r) => s.app.server.getConnections((_, n) => r(n >= 64))),
    5000,
    'the 64 connections accepted',
  );
  // Written in one synchronous loop: the server's next poll finds every one of them ready.
  sockets.forEach((sock, i) => {
    // 100 KB each (300 KB one), so that starting them all takes well past the budget on any machine.
    const text = i === 7 ? 'y'.repeat(300_000) : `burst ${i} ${'z'.repeat(100_000)}`;
    const raw = request(JSON.stringify(roomMessage('burst', 'alpha', text)));
    // Four uploads stop halfway and hang up while they wait for their turn.
    if (i % 16 === 15) {
      sock.write(raw.slice(0, raw.length - 5));
      sock.destroy();
    } else sock.write(raw);
  });
  const got = await Promise.all(answers);
  const sent = got.filter((_, i) => i % 16 !== 15);
  assert.is(sent.length, 60);
  for (const a of sent) assert.match(a, /^HTTP\/1\.1 200 /, a.slice(0, 300));
  const ids = new Set(sent.map((a) => (JSON.parse(a.slice(a.indexOf('\r\n\r\n') + 4)) as { message_id: string }).message_id));
  assert.is(ids.size, 60, 'sixty distinct messages');

  // The room's history, page by page (a page stops at its byte budget): the sixty, nothing else.
  const texts: string[] = [];
  for (let before: string | undefined, more = true; more; ) {
    const page = await s.get(`/v1/rooms/burst/messages?limit=100${before ? `&before=${before}` : ''}`, TOKENS.admin.value);
    assert.is(page.status, 200);
    texts.push(...(page.body.messages as { parts: { text: string }[] }[]).map((m) => m.parts[0]!.text));
    more = page.body.page.has_more === true;
    before = page.body.page.next_before as string | undefined;
  }
  assert.is(texts.length, 60, 'no upload cut off was stored');
  assert.ok(texts.includes('y'.repeat(300_000)), 'the 300 KB body was read after its wait');

  const after = (await metricValue(s, TOKENS.admin.value, 'svc_http_requests_waited_total')) ?? 0;
  assert.ok(after > before, `some requests waited for a later iteration (${before} -> ${after})`);
});

test('the server answers on after the burst', async ({ s }) => {
  const r = await s.get('/v1/rooms/burst', TOKENS.admin.value);
  assert.is(r.status, 200);
});

test.run();
