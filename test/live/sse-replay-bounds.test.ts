// SSE replay respects the per-stream cap on every replay path: it is written as the socket drains,
// so streams that never read hold no copy of the buffer, the server's memory stays bounded, a
// stream whose waiting events pass the cap is cut, and /healthz keeps answering.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { eventually, startServer, TOKENS, roomMessage, type TestServer } from '../helpers/server.js';
import { readEventIds, rssMiB, stalledStream, type StreamRead } from '../helpers/live.js';

const ADMIN = TOKENS.admin.value;
const OBS = TOKENS.observer.value;
const BIG = 100 * 1024;
const COUNT = 200;
/** Median /healthz beside a stalled replay's start / between starts: 3-7 here, so generous for a loaded machine. */
const HEALTH_RATIO = 30;

/** Reads a stream as the observer until `until` holds for the event ids seen so far (or the time runs out). */
const readStream = (s: TestServer, headers: Record<string, string>, until: (ids: string[]) => boolean, ms = 20_000): Promise<StreamRead> =>
  readEventIds(s, { authorization: `Bearer ${OBS}`, ...headers }, until, ms);

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
  const socks: Socket[] = [];
  const healthMs = async () => {
    const t0 = performance.now();
    assert.is((await s.get('/healthz')).status, 200);
    return performance.now() - t0;
  };
  // A /healthz just before each stalled replay opens is the baseline for the one sent right
  // after it, which runs while the server starts that replay (same server, same load).
  const quiet: number[] = [];
  const opening: number[] = [];
  for (let i = 0; i < 8; i++) {
    quiet.push(await healthMs());
    socks.push(await stalledStream(s, i % 2 ? 'bogus' : 'evt_unknown', OBS));
    opening.push(await healthMs());
  }
  await new Promise((r) => setTimeout(r, 1000));
  quiet.push(await healthMs());
  const grown = rssMiB(s) - before;
  // Writing the whole buffer to each stream at once held ~20 MiB of frames per stream (8 streams:
  // 160 MiB and more); paced by the socket each holds about one chunk.
  assert.ok(grown < 64, `server RSS grew ${grown.toFixed(0)} MiB for 8 stalled replays`);
  // Starting a replay never holds the server for long: the median /healthz beside the openings
  // stays within a few times the median of those between them (medians: one hiccup of a busy
  // machine does not decide).
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  assert.ok(
    median(opening) <= HEALTH_RATIO * median(quiet),
    `median /healthz beside a replay opening ${median(opening).toFixed(1)} ms, ${(median(opening) / median(quiet)).toFixed(1)}x the ${median(quiet).toFixed(1)} ms between them (at most ${HEALTH_RATIO}x)`,
  );
  for (const sock of socks) sock.destroy();
});

replay('a stalled replay whose waiting live events pass the cap is cut', async ({ s }) => {
  const drops = async () => Number(/svc_broker_drops_total\{surface="sse"\} (\d+)/.exec((await s.get('/metrics', ADMIN)).text)?.[1] ?? 0);
  const before = await drops();
  const sock = await stalledStream(s, 'bogus', OBS);
  let closed = false;
  sock.on('close', () => (closed = true));
  // 4 MiB of live events waiting behind the replay: one more message passes the cap.
  await sendMany(s, 50, BIG);
  await eventually(async () => (await drops()) > before, 30_000, 'the stalled stream dropped');
  sock.resume(); // read what was sent so the close is seen
  await eventually(() => closed, 30_000, 'the stalled stream closed');
});

replay.run();
