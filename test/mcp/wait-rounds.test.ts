// The rounds of a /v1/mcp wait_for_messages over the store (src/mcp-http/read-state.ts): every
// event of the network wakes a round, so a round goes on from where the last one's read ended,
// while the agent's cursor has not moved. On a real store behind a real server; the undone events'
// case on a sqlite store whose journal write is made to fail.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureReadState, StoreInbox } from '../../src/mcp-http/read-state.js';
import type { ReadMark } from '../../src/mcp-http/inbox-wait.js';
import { selfOf } from '../../src/mcp/format.js';
import type { Message } from '../../src/protocol/types.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/types.js';
import { codeOf, createRoom, msg, NET, send } from '../helpers/store-fixtures.js';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const WAITER = 'w';
const CONFIG = { rooms: [{ id: 'general', name: 'General', members: ['alpha', WAITER] }] };

async function say(s: AppServer, text: string, mentions: string[] = []): Promise<string> {
  const r = await s.req('POST', '/v1/messages', {
    token: TOKENS.alphaOnly.value,
    body: { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text }], mentions },
  });
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

/** The store, counting the events its eventsAfter returns (everything else passes through). */
function counting(store: Store): { store: Store; read: () => number } {
  let read = 0;
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === 'eventsAfter')
        return async (seq: number, limit: number) => {
          const events = await target.eventsAfter(seq, limit);
          read += events.length;
          return events;
        };
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store: wrapped, read: () => read };
}

const t = suite<{ s: AppServer }>('wait_for_messages rounds read on from the last one');
t.before(async (ctx) => {
  ctx.s = await startApp({ config: CONFIG });
});
t.after(async (ctx) => ctx.s?.dispose());

t('a wait under traffic out of its scope reads each event about once, and returns the mention', async (ctx) => {
  const store = ctx.s.app.ctx.store;
  await ensureReadState(store, WAITER);
  const c = counting(store);
  const inbox = new StoreInbox(c.store, selfOf('testnet', WAITER));
  const wait = inbox.wait('mentions', 60_000);
  const n = 150;
  // Each send wakes a round; reading from the cursor every time would read about n²/2 events.
  for (let i = 0; i < n; i++) await say(ctx.s, `traffic ${i}`);
  const id = await say(ctx.s, `@${WAITER} here`, [WAITER]);
  const r = await wait;
  assert.equal(
    r.messages.map((m) => m.id),
    [id],
  );
  assert.ok(c.read() <= 3 * (n + 1), `the rounds read ${c.read()} events for ${n + 1} sent`);
});

t('a round reads from the cursor again once another call moved it, so nothing is returned twice', async (ctx) => {
  const store = ctx.s.app.ctx.store;
  const inbox = new StoreInbox(store, selfOf('testnet', WAITER));
  const later = Date.now() + 60_000;
  const go = () => false;
  await say(ctx.s, 'traffic before');
  const first = await inbox.pass('mentions', later, go, undefined);
  assert.ok(!('messages' in first), 'nothing in scope yet');
  const mark = first as ReadMark;
  const id = await say(ctx.s, `@${WAITER} once`, [WAITER]);
  // Another call (on any instance) returns the mention and moves the cursor past it.
  const other = await inbox.pass('mentions', later, go, undefined);
  assert.ok('messages' in other);
  assert.equal(
    other.messages.map((m) => m.id),
    [id],
  );
  // The first wait's next round: its mark is behind the moved cursor and is not used.
  const next = await inbox.pass('mentions', later, go, mark);
  assert.ok(!('messages' in next), `returned again: ${JSON.stringify(next)}`);
  assert.ok(next.cursor > mark.cursor && next.upTo >= next.cursor);
  // While the cursor stays, a round goes on from the mark: what it read before is not read again.
  await say(ctx.s, `@${WAITER} unread`, [WAITER]);
  const skipped = await inbox.pass('mentions', later, go, { ...next, upTo: next.upTo + 1 });
  assert.ok(!('messages' in skipped), 'a mention before the mark is taken as read by that round');
});

t.run();

// On sqlite a wait is woken as soon as a send is applied, before it is durable, and reads it. When
// that turn's journal write fails, the turn is undone and its seqs are given to the next events.
const r = suite<{ dir: string }>('wait_for_messages over events that were undone');
r.before.each((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'svc-wait-undone-'));
});
r.after.each((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

r('a wait that read an event later undone still returns the mention that takes its seq', async (ctx) => {
  let full = false;
  const store = await openSqliteStore({ path: join(ctx.dir, 'svc.db'), faults: { failWrites: () => full } });
  try {
    await store.write([createRoom('r1', { members: ['a1', WAITER] })]);
    await ensureReadState(store, WAITER);
    const self = selfOf(NET, WAITER);
    const wait = new StoreInbox(store, self).wait('mentions', 60_000);
    await new Promise((res) => setImmediate(res));
    // Read by the wait when applied (it is not for the wait), then undone with its turn.
    full = true;
    assert.is(await codeOf(() => store.write([send(msg('traffic'))])), 'unavailable');
    full = false;
    const seq = store.feed.head;
    const mention: Message = { ...msg('mention'), mentions: [self.fqid] };
    await store.write([send(mention)]);
    assert.is(store.feed.head, seq + 1, 'the mention took the undone seq');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, no) => (timer = setTimeout(() => no(new Error('the mention was missed')), 5000)));
    const got = await Promise.race([wait, timeout]).finally(() => clearTimeout(timer));
    assert.equal(
      got.messages.map((m) => m.id),
      ['mention'],
    );
  } finally {
    await store.close();
  }
});

r.run();
