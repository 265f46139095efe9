// The search index never disagrees with the messages: after a graceful restart, and after a
// `kill -9` in the middle of a burst of writes (with checkpoints along the way), every word finds
// exactly the stored messages holding it, and every acknowledged message is found.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, TOKENS, roomMessage, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
const VOCAB = ['apple', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove'];

interface Ctx {
  s: TestServer;
  acked: Map<string, string>;
}

/** The text of message number i: two vocabulary words and one word of its own. */
const textOf = (i: number) => `${VOCAB[i % VOCAB.length]} ${VOCAB[(i * 3 + 1) % VOCAB.length]} uniq${i}x`;

/** Every stored message of room `idx` as id -> text, read through history. */
async function stored(s: TestServer): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let before: string | undefined;
  for (;;) {
    const r = await s.get(`/v1/rooms/idx/messages?limit=500${before ? `&before=${before}` : ''}`, ADMIN);
    assert.is(r.status, 200, r.text);
    for (const m of r.body.messages) out.set(m.id, m.parts[0].text);
    if (!r.body.page.has_more) return out;
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

t.run();
