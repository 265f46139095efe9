// An SSE resume over 1 MiB messages is written as the socket drains on every backend: four
// anonymous streams that send Last-Event-ID and never read keep the server's memory within a few
// MiB each (on Postgres the replay comes from the store, page by page, on an instance that never
// buffered those events), and a reading client still gets every event once, in order.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Socket } from 'node:net';
import { startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgServer } from '../helpers/pg-server.js';
import { readEventIds, rssMiB, stalledStream, type StreamRead } from '../helpers/live.js';

const ADMIN = TOKENS.admin.value;
const COUNT = 40;
/** About 1 MiB of text: the body cap is 1 MiB, the envelope takes the rest. */
const BIG = 1024 * 1024 - 1024;
const STREAMS = 4;
const config = {
  auth: { public_read: true },
  rooms: [{ id: 'general', name: 'General', members: ['alpha'], visibility: 'public' }],
};

async function say(s: TestServer, text: string): Promise<string> {
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'general' }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text }] },
    ADMIN,
  );
  assert.is(r.status, 200, r.text);
  return r.body.event_id as string;
}

/** Sends a small marker (the resume point), then COUNT messages of about 1 MiB; their event ids. */
async function fill(s: TestServer): Promise<{ marker: string; ids: string[] }> {
  const marker = await say(s, 'marker');
  const ids: string[] = [];
  for (let i = 0; i < COUNT; i++) ids.push(await say(s, `${i} ${'x'.repeat(BIG)}`));
  return { marker, ids };
}

/** Reads an anonymous stream resumed after `lastEventId` until `n` event ids arrived. */
const readIds = (s: TestServer, lastEventId: string, n: number, ms = 60_000): Promise<StreamRead> =>
  readEventIds(s, { 'last-event-id': lastEventId }, (ids) => ids.length >= n, ms);

/**
 * Opens the stalled streams and samples the server's RSS while their replays run; the largest
 * growth over the baseline taken just before, in MiB.
 */
async function growthUnderStalledStreams(s: TestServer, marker: string): Promise<number> {
  await new Promise((r) => setTimeout(r, 500));
  const before = rssMiB(s);
  const socks: Socket[] = [];
  for (let i = 0; i < STREAMS; i++) socks.push(await stalledStream(s, marker));
  let peak = before;
  for (let t = 0; t < 40; t++) {
    await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, rssMiB(s));
  }
  // The streams are open and the server still answers.
  assert.is((await s.get('/healthz')).status, 200);
  for (const sock of socks) sock.destroy();
  return peak - before;
}

/** Four streams of a few MiB each (a store page, a chunk, a socket buffer) plus slack for the allocator. */
const BOUND_MIB = STREAMS * 8 + 32;

const pg = suite<{ pgs: PgSchema; servers: TestServer[] }>('SSE resume over 1 MiB messages on Postgres');
pg.before.each(async (ctx) => {
  ctx.pgs = await freshSchema();
  ctx.servers = [];
});
pg.after.each(async ({ pgs, servers }) => {
  await Promise.all(servers.map((s) => s.dispose()));
  await pgs.drop();
});

pg(
  'four anonymous streams resumed from the store that never read keep the second instance within a few MiB each',
  async ({ pgs, servers }) => {
    const a = await startPgServer(pgs, config as Json);
    servers.push(a);
    const { marker, ids } = await fill(a);
    // Started after the messages: its buffer does not hold them, the replay reads the store.
    const b = await startPgServer(pgs, config as Json);
    servers.push(b);
    // A client that reads gets every event after the marker once, in order, and no gap. Read
    // first: the replay's own working set (a store page, a chunk) is then in B's heap before the
    // baseline, and what is measured is what stalled streams hold on top of it.
    const read = await readIds(b, marker, COUNT);
    assert.not.ok(read.gap);
    assert.equal(read.ids, ids);
    const grown = await growthUnderStalledStreams(b, marker);
    assert.ok(
      grown < BOUND_MIB,
      `B's RSS grew ${grown.toFixed(0)} MiB for ${STREAMS} stalled replays of ${COUNT} MiB (bound ${BOUND_MIB})`,
    );
  },
);

pg('a resume further back than event_buffer events gets a gap frame instead of the store replay', async ({ pgs, servers }) => {
  const small = { ...config, server: { event_buffer: 3 } };
  const a = await startPgServer(pgs, small as Json);
  servers.push(a);
  const marker = await say(a, 'marker');
  for (let i = 0; i < 5; i++) await say(a, `m${i}`);
  const b = await startPgServer(pgs, small as Json);
  servers.push(b);
  const tail = await say(b, 'tail');
  const read = await readIds(b, marker, 1, 5000);
  assert.ok(read.gap, 'a replay_gap frame');
  assert.equal(read.ids, [tail], 'then the buffer (what B saw)');
});

pg.run();

const lite = suite<{ s: TestServer }>('SSE resume over 1 MiB messages on sqlite');
lite.after.each(async ({ s }) => s?.dispose());

lite('four anonymous streams resumed from the buffer that never read keep the server within a few MiB each', async (ctx) => {
  const s = (ctx.s = await startServer({ config: config as Json }));
  const { marker, ids } = await fill(s);
  // Read first, as on Postgres: the baseline then includes the replay's own working set.
  const read = await readIds(s, marker, COUNT);
  assert.not.ok(read.gap);
  assert.equal(read.ids, ids);
  const grown = await growthUnderStalledStreams(s, marker);
  assert.ok(grown < BOUND_MIB, `RSS grew ${grown.toFixed(0)} MiB for ${STREAMS} stalled replays of ${COUNT} MiB (bound ${BOUND_MIB})`);
});

lite.run();
