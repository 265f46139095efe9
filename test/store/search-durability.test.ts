// The search index never disagrees with the messages: after a graceful restart, and after a
// `kill -9` in the middle of a burst of writes (with checkpoints along the way), every word finds
// exactly the stored messages holding it, and every acknowledged message is found. On sqlite the
// index is the search worker's own file (`svc.db.search`), written every few seconds: a kill leaves
// it behind the store, and the next start catches up from the store. A search sent the moment a
// send has answered finds that message (read-your-writes), and the index's lag is a metric.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, TOKENS, roomMessage, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
const VOCAB = ['apple', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove'];

interface Ctx {
  s: TestServer;
  acked: Map<string, string>;
}

/** The text of message number i: two vocabulary words and one word of its own. */
const textOf = (i: number) => `${VOCAB[i % VOCAB.length]} ${VOCAB[(i * 3 + 1) % VOCAB.length]} uniq${i}x`;

/** Every stored message of room `idx` as id -> text, oldest first, read through history. */
async function stored(s: TestServer): Promise<Map<string, string>> {
  // Each page is oldest first, and the pages go back in time.
  const pages: [string, string][][] = [];
  let before: string | undefined;
  for (;;) {
    const r = await s.get(`/v1/rooms/idx/messages?limit=500${before ? `&before=${before}` : ''}`, ADMIN);
    assert.is(r.status, 200, r.text);
    pages.unshift(r.body.messages.map((m: { id: string; parts: { text: string }[] }) => [m.id, m.parts[0]!.text]));
    if (!r.body.page.has_more) return new Map(pages.flat());
    before = r.body.page.next_before;
  }
}

async function searchAll(s: TestServer, q: string): Promise<string[]> {
  const ids: string[] = [];
  let before: string | undefined;
  for (;;) {
    const r = await s.get(`/v1/search?q=${q}&limit=100${before ? `&before=${before}` : ''}`, ADMIN);
    assert.is(r.status, 200, r.text);
    ids.push(...r.body.messages.map((m: { id: string }) => m.id));
    if (!r.body.page.has_more) return ids;
    before = r.body.page.next_before;
  }
}

/** For every vocabulary word, search gives exactly the stored messages holding it, newest first. */
async function assertAgrees(s: TestServer): Promise<Map<string, string>> {
  const messages = await stored(s);
  const newestFirst = [...messages.keys()].reverse();
  for (const w of VOCAB) {
    const expected = newestFirst.filter((id) => messages.get(id)!.split(' ').includes(w));
    assert.equal(await searchAll(s, w), expected, `word ${w}`);
  }
  return messages;
}

async function sendAll(s: TestServer, from: number, to: number, acked: Map<string, string>): Promise<void> {
  for (let i = from; i < to; i++) {
    const r = await s.post('/v1/messages', { ...roomMessage('idx', 'ops', textOf(i)), id: `m-${i}` }, ADMIN);
    assert.is(r.status, 200, r.text);
    acked.set(r.body.message_id, textOf(i));
  }
}

const t = suite<Ctx>('search index across restarts and crashes');
t.before(async (c) => {
  // Small checkpoints: the index must survive journal replay on top of checkpointed files.
  c.s = await startServer({
    config: { store: { backend: 'sqlite', path: '.svc/svc.db', checkpoint_bytes: 16384 }, rooms: [{ id: 'idx', members: ['ops'] }] },
  });
  c.acked = new Map();
});
t.after(async (c) => c.s.dispose());

t('after a graceful restart every word finds exactly the messages holding it', async (c) => {
  await sendAll(c.s, 0, 80, c.acked);
  await assertAgrees(c.s);
  assert.is(await c.s.stop(), 0);
  await c.s.restart();
  const messages = await assertAgrees(c.s);
  assert.is(messages.size, 80);
  assert.equal(await searchAll(c.s, 'uniq42x'), ['m-42']);
});

t('after kill -9 during a burst of writes the index agrees with what was stored', async (c) => {
  const s = c.s;
  // Concurrent sends; the kill lands while some are still in flight.
  const inflight: Promise<void>[] = [];
  let acks = 0;
  const burst = (i: number) =>
    s.post('/v1/messages', { ...roomMessage('idx', 'ops', textOf(i)), id: `m-${i}` }, ADMIN).then(
      (r) => {
        if (r.status === 200) {
          c.acked.set(r.body.message_id, textOf(i));
          acks++;
        }
      },
      () => undefined,
    );
  let next = 80;
  const killed = (async () => {
    while (acks < 120) await new Promise((r) => setTimeout(r, 2));
    await s.kill9();
  })();
  for (let lane = 0; lane < 8; lane++) {
    inflight.push(
      (async () => {
        while (s.proc.exitCode === null && s.proc.signalCode === null && next < 600) await burst(next++);
      })(),
    );
  }
  await killed;
  await Promise.all(inflight);
  assert.ok(acks >= 120, `acknowledged ${acks}`);
  await s.restart();
  const messages = await assertAgrees(s);
  for (const [id, text] of c.acked) {
    assert.is(messages.get(id), text, `acknowledged ${id} is stored`);
    const own = text.split(' ')[2]!;
    assert.equal(await searchAll(s, own), [id], `acknowledged ${id} is found`);
  }
  // New writes after the recovery are indexed too.
  await sendAll(s, 1000, 1003, c.acked);
  assert.equal(await searchAll(s, 'uniq1002x'), ['m-1002']);
  await assertAgrees(s);
});

t('a search sent the moment each send answers finds it, with other senders writing meanwhile', async (c) => {
  const s = c.s;
  let stop = false;
  // Background senders keep the worker busy.
  const noise = Array.from({ length: 3 }, (_, lane) =>
    (async () => {
      for (let i = 0; !stop; i++) {
        const r = await s.post('/v1/messages', { ...roomMessage('idx', 'ops', `noise lane${lane} n${i}`), id: `z-${lane}-${i}` }, ADMIN);
        assert.is(r.status, 200, r.text);
      }
    })(),
  );
  try {
    for (let i = 0; i < 150; i++) {
      const r = await s.post('/v1/messages', { ...roomMessage('idx', 'ops', `fresh ryw${i}q`), id: `ryw-${i}` }, ADMIN);
      assert.is(r.status, 200, r.text);
      const q = await s.get(`/v1/search?q=ryw${i}q&limit=5`, ADMIN);
      assert.is(q.status, 200, q.text);
      assert.equal(
        q.body.messages.map((m: { id: string }) => m.id),
        [`ryw-${i}`],
        `message ${i} found right after its send`,
      );
    }
  } finally {
    stop = true;
    await Promise.all(noise);
  }
});

t('the index lag is exposed on /metrics', async (c) => {
  const r = await c.s.get('/metrics', ADMIN);
  assert.is(r.status, 200);
  const line = r.text.split('\n').find((l) => l.startsWith('svc_search_index_lag_seconds '));
  assert.ok(line, 'svc_search_index_lag_seconds is a series');
  assert.ok(Number(line!.split(' ')[1]) >= 0);
});

t('kill -9 mid-ingest after the search file was written: the restart catches it up from the store', async (c) => {
  const s = c.s;
  const file = join(s.dir, '.svc', 'svc.db.search');
  const before = new Map<string, string>();
  let next = 2000;
  let stop = false;
  let acks = 0;
  const lanes = Array.from({ length: 4 }, () =>
    (async () => {
      while (!stop && s.proc.exitCode === null && s.proc.signalCode === null) {
        const i = next++;
        const r = await s.post('/v1/messages', { ...roomMessage('idx', 'ops', textOf(i)), id: `m-${i}` }, ADMIN).catch(() => undefined);
        if (r?.status === 200) {
          c.acked.set(r.body.message_id, textOf(i));
          before.set(r.body.message_id, textOf(i));
          acks++;
        }
      }
    })(),
  );
  // Until the worker has written its file once, then on for a while: the kill lands while it is
  // behind the store (it is written every few seconds) and sends are in flight.
  for (let i = 0; i < 3000 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(existsSync(file), 'the search worker wrote its file');
  const at = acks;
  while (acks < at + 300) await new Promise((r) => setTimeout(r, 5));
  await s.kill9();
  stop = true;
  await Promise.all(lanes);
  await s.restart();
  const messages = await assertAgrees(s);
  for (const [id, text] of before) {
    assert.is(messages.get(id), text, `acknowledged ${id} is stored`);
  }
  // A sample of the acknowledged messages by their own word (every one is covered by assertAgrees).
  const ids = [...before.keys()];
  for (const id of [ids[0]!, ids[ids.length >> 1]!, ids[ids.length - 1]!]) {
    assert.equal(await searchAll(s, before.get(id)!.split(' ')[2]!), [id], `acknowledged ${id} is found`);
  }
});

t.run();
