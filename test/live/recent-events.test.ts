// The live hub's newest events (src/live/recent-events.ts): what the ring claims to hold, and an
// attachment that resumes from a recent cursor, caught up from memory: no store page read, its
// events in order, a redaction scrubbed. Then the audiences of one room's events share one Set.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import { LiveHub } from '../../src/live/hub.js';
import { RecentEvents } from '../../src/live/recent-events.js';
import { silentLogger } from '../../src/log.js';
import type { StoredEvent } from '../../src/store/types.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { attachAs } from '../helpers/live.js';
import { roomMessage, TOKENS, testConfig, type Json } from '../helpers/server.js';
import { createRoom, createdEvent, msg, send } from '../helpers/store-fixtures.js';

const ev = (seq: number, messageId = `m${seq}`): StoredEvent => ({ seq, event: createdEvent(msg(messageId)) });
const seqs = (events: readonly StoredEvent[] | undefined) => events?.map((e) => e.seq);

const ring = suite('the ring of the newest events');

ring('holds nothing until the first event, then everything after the one before it', () => {
  const r = new RecentEvents(4);
  assert.is(r.after(0, 10), undefined);
  r.push(ev(5));
  r.push(ev(7));
  assert.equal(seqs(r.after(4, 10)), [5, 7]);
  assert.equal(seqs(r.after(5, 10)), [7]);
  assert.equal(seqs(r.after(7, 10)), []);
  assert.is(r.after(3, 10), undefined, 'seq 4 may exist and was never held');
});

ring('forgets the oldest beyond its capacity and says so for cursors before them', () => {
  const r = new RecentEvents(3);
  for (const s of [1, 2, 3, 4, 5]) r.push(ev(s));
  assert.equal(seqs(r.after(2, 10)), [3, 4, 5]);
  assert.equal(seqs(r.after(3, 2)), [4, 5]);
  assert.equal(seqs(r.after(2, 2)), [3, 4], 'a page is at most the limit');
  assert.is(r.after(1, 10), undefined, 'seq 2 was forgotten');
});

ring('claims nothing older than an event that came out of order', () => {
  const r = new RecentEvents(8);
  for (const s of [1, 2, 3]) r.push(ev(s));
  r.push(ev(2));
  assert.is(r.after(1, 10), undefined);
  r.push(ev(4));
  assert.equal(seqs(r.after(3, 10)), [4]);
});

ring('shows a tombstone in place of every copy of a redacted message', () => {
  const r = new RecentEvents(4);
  const held = ev(1, 'secret');
  r.push(held);
  r.push(ev(2));
  const tombstone = { ...msg('secret'), parts: [], redacted_at: '2024-05-02T00:00:00.000Z' };
  r.scrub(tombstone);
  const [first, second] = r.after(0, 10)!;
  assert.equal(first!.event.message, tombstone);
  assert.is(first!.seq, 1);
  assert.is(held.event.message!.parts.length, 1, 'the published object is left as it was');
  assert.is(second!.event.message!.id, 'm2');
});

ring.run();

const resume = suite<{ s: AppServer }>('an attachment resuming from a recent cursor');
resume.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', members: ['alpha'] }] } });
});
resume.after(async ({ s }) => s.dispose());

resume('is caught up from memory, in order, with a redaction scrubbed', async ({ s }) => {
  const token = TOKENS.alphaOnly.value;
  const identity = (extra: Record<string, Json> = {}) => ({ network_id: s.networkId, agent: { id: 'alpha' }, ...extra });
  const say = async (text: string) => {
    const r = await s.post('/v1/messages', roomMessage('general', 'carol', text), TOKENS.admin.value);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  const first = await attachAs(s, identity(), { token });
  await say('m1');
  const m1 = await first.c.message('m1');
  await first.c.close();
  const secret = await say('a secret');
  await say('m3');
  const redacted = await s.post(`/v1/messages/${secret}/redact`, undefined, TOKENS.admin.value);
  assert.is(redacted.status, 200, redacted.text);

  // Counts the store's event pages while the attachment catches up (the store itself is real).
  const store = s.app.ctx.store;
  const read = store.eventsAfter.bind(store);
  let pages = 0;
  store.eventsAfter = (after, limit) => {
    pages++;
    return read(after, limit);
  };
  try {
    const second = await attachAs(s, identity({ cursor: m1.cursor }), { token });
    await second.c.next((f: Json) => f.op === 'EVENT' && f.event.type === 'message.redacted');
    const messages = second.c.events.filter((f: Json) => f.event.type === 'message.created').map((f: Json) => f.event.message);
    assert.equal(
      messages.map((m: Json) => [m.id, m.parts.length]),
      [
        [secret, 0],
        [messages[1].id, 1],
      ],
      'the redacted message shows only its tombstone',
    );
    assert.not.ok(JSON.stringify(second.c.frames.items).includes('a secret'));
    const cursors = second.c.events.map((f: Json) => Number(f.cursor));
    assert.equal(
      cursors,
      [...cursors].sort((a, b) => a - b),
    );
    assert.is(pages, 0, 'no page was read from the store');
    await second.c.close();
  } finally {
    store.eventsAfter = read;
  }
});

resume.run();

const audiences = suite('audiences');

audiences('of one room read together share one Set of local ids', async () => {
  const app = await createApp(parseConfig(testConfig({ store: { backend: 'memory' } }), { baseDir: tmpdir(), env: {} }), {
    log: silentLogger,
    features: [],
  });
  const hub = new LiveHub(app.ctx, app.metrics, () => []);
  try {
    await app.ctx.store.write([createRoom('r1', { members: ['a1', 'a2'] })]);
    await app.ctx.store.write([send(msg('m1'))]);
    await app.ctx.store.write([send(msg('m2'))]);
    const page = await app.ctx.store.eventsAfter(0, 100);
    await hub.prepare(page);
    const [a, b] = page.filter((e) => e.event.type === 'message.created').map((e) => hub.audienceOf(e));
    assert.ok(a!.locals.has('a1'));
    assert.is(a!.locals, b!.locals);
  } finally {
    await hub.close();
    await app.close();
  }
});

audiences.run();
