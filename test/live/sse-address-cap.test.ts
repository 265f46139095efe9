// One client address holds at most `server.limits.sse_streams_per_address` open SSE streams
// (default 32): the next is refused with a 429 error envelope before any stream opens, a closed
// stream frees its place, and 0 turns the cap off. The count lives in the process, so it holds
// on every backend alike; both are run.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { eventually, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';

const publicRead = { auth: { public_read: true } };

/** An anonymous stream on a raw socket; resolves with the socket and the status line once the head arrived. */
function openRaw(s: AppServer): Promise<{ sock: net.Socket; status: number; text: () => string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const sock = net.connect(s.port, '127.0.0.1', () => sock.write('GET /v1/events/stream HTTP/1.1\r\nhost: x\r\n\r\n'));
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => {
      const first = text === '';
      text += d;
      if (first) resolve({ sock, status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text: () => text });
    });
    sock.on('error', reject);
  });
}

async function capChecks(start: (config: Record<string, Json>) => Promise<AppServer>, track: (s: AppServer) => void): Promise<void> {
  const s = await start(publicRead);
  track(s);
  const open = [];
  for (let i = 0; i < 32; i++) {
    const o = await openRaw(s);
    assert.is(o.status, 200, `stream ${i + 1} opens`);
    open.push(o);
  }
  const refused = await openRaw(s);
  assert.is(refused.status, 429);
  await eventually(() => refused.text().includes('"code"'), 5000, 'the error body');
  const body = JSON.parse(refused.text().slice(refused.text().indexOf('\r\n\r\n') + 4)) as Json;
  assert.is(body.code, 'too_many_requests');
  assert.match(body.error, /sse_streams_per_address/);
  assert.not.match(refused.text(), /text\/event-stream/);
  refused.sock.destroy();
  // Closing one frees its place.
  open.pop()!.sock.destroy();
  const again = await eventually(
    async () => {
      const o = await openRaw(s);
      if (o.status !== 200) o.sock.destroy();
      return o.status === 200 ? o : undefined;
    },
    5000,
    'a stream opens again',
  );
  open.push(again!);
  for (const o of open) o.sock.destroy();
}

async function configuredChecks(start: (config: Record<string, Json>) => Promise<AppServer>, track: (s: AppServer) => void): Promise<void> {
  const two = await start({ ...publicRead, server: { limits: { sse_streams_per_address: 2 } } });
  track(two);
  const a = await openRaw(two);
  const b = await openRaw(two);
  const c = await openRaw(two);
  assert.equal([a.status, b.status, c.status], [200, 200, 429]);
  for (const o of [a, b, c]) o.sock.destroy();
  const off = await start({ ...publicRead, server: { limits: { sse_streams_per_address: 0 } } });
  track(off);
  const many = [];
  for (let i = 0; i < 40; i++) many.push(await openRaw(off));
  assert.ok(
    many.every((o) => o.status === 200),
    'no cap with 0',
  );
  for (const o of many) o.sock.destroy();
}

const lite = suite<{ servers: AppServer[] }>('SSE streams per address on sqlite');
lite.before.each((ctx) => {
  ctx.servers = [];
});
lite.after.each(async ({ servers }) => {
  await Promise.all(servers.map((s) => s.dispose()));
});
lite('the 33rd stream from one address is refused with 429 by default, and a closed stream frees its place', ({ servers }) =>
  capChecks(
    (config) => startApp({ config }),
    (s) => servers.push(s),
  ),
);
lite('the cap follows server.limits.sse_streams_per_address, and 0 turns it off', ({ servers }) =>
  configuredChecks(
    (config) => startApp({ config }),
    (s) => servers.push(s),
  ),
);
lite.run();

const pg = suite<{ pgs: PgSchema; servers: AppServer[] }>('SSE streams per address on Postgres');
pg.before.each(async (ctx) => {
  ctx.pgs = await freshSchema();
  ctx.servers = [];
});
pg.after.each(async ({ pgs, servers }) => {
  await Promise.all(servers.map((s) => s.dispose()));
  await pgs.drop();
});
pg('the 33rd stream from one address is refused with 429 by default, and a closed stream frees its place', ({ pgs, servers }) =>
  capChecks(
    (config) => startPgApp(pgs, config),
    (s) => servers.push(s),
  ),
);
pg.run();
