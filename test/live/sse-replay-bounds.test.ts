// SSE replay respects the per-stream cap on every replay path: it is written as the socket drains,
// so streams that never read hold no copy of the buffer, the server's memory stays bounded, a
// stream whose waiting events pass the cap is cut, and /healthz keeps answering.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { eventually, startServer, TOKENS, roomMessage, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
const OBS = TOKENS.observer.value;
const BIG = 100 * 1024;
const COUNT = 200;

/** Resident set of the server process in MiB (Linux). */
function rssMiB(s: TestServer): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.proc.pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** Opens a stream on a raw socket and never reads from it. */
function stalledStream(s: TestServer, lastEventId: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(s.port, '127.0.0.1', () => {
      sock.write(`GET /v1/events/stream HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${OBS}\r\nlast-event-id: ${lastEventId}\r\n\r\n`);
      sock.pause();
      resolve(sock);
    });
    sock.on('error', reject);
  });
}

interface Read {
  ids: string[];
  gap: boolean;
}

/** Reads a stream until `until` holds for the event ids seen so far (or the time runs out). */
async function readStream(s: TestServer, headers: Record<string, string>, until: (ids: string[]) => boolean, ms = 20_000): Promise<Read> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const r = await fetch(`${s.url}/v1/events/stream`, { headers: { authorization: `Bearer ${OBS}`, ...headers }, signal: ac.signal });
  const reader = r.body!.getReader();
  const dec = new TextDecoder();
  const out: Read = { ids: [], gap: false };
  let partial = '';
  try {
    while (!until(out.ids)) {
      const { value, done } = await reader.read();
      if (done) break;
      // Line by line as it arrives: the frames are large, rescanning everything would be quadratic.
      const lines = (partial + dec.decode(value, { stream: true })).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('id: ')) out.ids.push(line.slice(4));
        else if (line === 'event: stream.replay_gap') out.gap = true;
      }
    }
  } catch {
    // aborted: return what arrived
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return out;
}

async function sendMany(s: TestServer, n: number, size: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, n - i) }, (_, k) =>
        s.post('/v1/messages', roomMessage('general', 'alpha', `${i + k} ${'x'.repeat(size)}`), TOKENS.alphaOnly.value),
      ),
    );
    for (const r of batch) {
      assert.is(r.status, 200, r.text);
      ids.push(r.body.event_id);
    }
  }
  return ids;
}

const replay = suite<{ s: TestServer; ids: string[] }>('replaying a buffer of large messages');
replay.before(async (ctx) => {
  ctx.s = await startServer({ config: { rooms: [{ id: 'general', members: ['alpha'] }] } });
  ctx.ids = await sendMany(ctx.s, COUNT, BIG);
});
replay.after(async (ctx) => ctx.s.dispose());

replay('a reading client with a bogus Last-Event-ID gets the gap frame and the whole buffer', async (ctx) => {
  const { s, ids } = ctx;
  const mine = new Set(ids);
  const sent = (all: string[]) => all.filter((id) => mine.has(id));
  const read = await readStream(s, { 'last-event-id': 'bogus' }, (all) => all.length >= COUNT && sent(all).length >= COUNT);
  assert.ok(read.gap, 'the replay_gap frame came first');
  // Sends ran ten at a time, so the stream's order (commit order) is the reference from here on.
  assert.equal([...sent(read.ids)].sort(), [...ids].sort());
  ctx.ids = sent(read.ids);
});

replay('a normal resume replays exactly the events after the given id, in order', async ({ s, ids }) => {
  const read = await readStream(s, { 'last-event-id': ids[COUNT - 51]! }, (all) => all.length >= 50);
  assert.not.ok(read.gap);
  assert.equal(read.ids.slice(0, 50), ids.slice(COUNT - 50));
});

replay('streams that never read stay bounded in server memory and /healthz keeps answering', async ({ s }) => {
  const before = rssMiB(s);
  const socks: net.Socket[] = [];
  const health: number[] = [];
  for (let i = 0; i < 8; i++) {
    socks.push(await stalledStream(s, i % 2 ? 'bogus' : 'evt_unknown'));
    const t0 = performance.now();
    assert.is((await s.get('/healthz')).status, 200);
    health.push(performance.now() - t0);
  }
  await new Promise((r) => setTimeout(r, 1000));
  const t0 = performance.now();
  assert.is((await s.get('/healthz')).status, 200);
  health.push(performance.now() - t0);
  const grown = rssMiB(s) - before;
  // Writing the whole buffer to each stream at once held ~20 MiB of frames per stream (8 streams:
  // 160 MiB and more); paced by the socket each holds about one chunk.
  assert.ok(grown < 64, `server RSS grew ${grown.toFixed(0)} MiB for 8 stalled replays`);
  assert.ok(Math.max(...health) < 1000, `slowest /healthz ${Math.max(...health).toFixed(0)} ms`);
  for (const sock of socks) sock.destroy();
});

replay('a stalled replay whose waiting live events pass the cap is cut', async ({ s }) => {
  const drops = async () => Number(/svc_broker_drops_total\{surface="sse"\} (\d+)/.exec((await s.get('/metrics', ADMIN)).text)?.[1] ?? 0);
  const before = await drops();
  const sock = await stalledStream(s, 'bogus');
  let closed = false;
  sock.on('close', () => (closed = true));
  // 4 MiB of live events waiting behind the replay: one more message passes the cap.
  await sendMany(s, 50, BIG);
  await eventually(async () => (await drops()) > before, 10_000, 'the stalled stream dropped');
  sock.resume(); // read what was sent so the close is seen
  await eventually(() => closed, 10_000, 'the stalled stream closed');
});

replay.run();
