// The receipt writer in process against a real memory store: marks from many readers about many
// messages become one store write and one message.receipts event per conversation per flush.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/config/load.js';
import { Broker } from '../../src/events/broker.js';
import { NO_EXTENSIONS, type NetworkContext } from '../../src/network/context.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { ReceiptWriter } from '../../src/receipts/writer.js';
import type { StoredEvent } from '../../src/store/types.js';
import { receiptsPart } from '../../src/store/receipts/part.js';

function context(raw: Record<string, unknown> = {}, store = new MemoryStore(), log: NetworkContext['log'] = () => {}): NetworkContext {
  const { config } = parseConfig({ network: { id: 'home' }, store: { backend: 'memory' }, ...raw }, { baseDir: tmpdir(), env: {} });
  return {
    config,
    store,
    broker: new Broker(),
    log,
    version: 'test',
    configWarnings: [],
    extensions: NO_EXTENSIONS,
  };
}

const receiptEvents = async (ctx: NetworkContext): Promise<StoredEvent[]> =>
  (await ctx.store.eventsAfter(0, 10_000)).filter((e) => e.event.type === 'message.receipts');

test('a hundred readers acknowledging a thousand messages in two rooms make one event per room per flush', async () => {
  const ctx = context();
  const w = new ReceiptWriter(ctx, 60_000);
  for (let seq = 1; seq <= 1000; seq++) {
    for (let r = 0; r < 100; r++) w.mark(`agent:a${r}`, seq % 2 ? 'room:one' : 'room:two', 'delivered', 1, seq);
  }
  await w.flush();
  const events = await receiptEvents(ctx);
  assert.is(events.length, 2);
  const one = events.find((e) => e.event.receipts?.target.kind === 'room' && e.event.receipts.target.room_id === 'one')!;
  assert.is(one.event.receipts!.marks.length, 100);
  assert.is(one.event.receipts!.marks[0]!.up_to_seq, 999);
  const recs = await ctx.store.part(receiptsPart)!.list('room:one');
  assert.is(recs.length, 100);
  assert.equal(
    recs[0]!.ranges.map(([a, b]) => [a, b]),
    [[1, 999]],
  );
  // The same marks again change nothing: no write, no event.
  for (let r = 0; r < 100; r++) w.mark(`agent:a${r}`, 'room:one', 'delivered', 1, 999);
  await w.flush();
  assert.is((await receiptEvents(ctx)).length, 2);
  await w.close();
});

test("a flush names each conversation from the marks' targets, without reading the store for them", async () => {
  // The DM is in no store: the event can only name it from the target the mark carried. (Read per
  // conversation per flush, one after another, the targets made a flush take seconds on Postgres
  // under the soak: #43 part 8.)
  const ctx = context();
  const w = new ReceiptWriter(ctx, 60_000);
  const dm = { kind: 'dm' as const, dm_id: 'dm_x', participant_ids: ['home:ann', 'home:bob'] };
  w.mark('agent:ann', 'dm:dm_x', 'delivered', 1, 3, dm);
  w.mark('agent:bob', 'thread:t1', 'read', 2, 2, { kind: 'thread', room_id: 'general', thread_id: 't1', parent_message_id: 'm0' });
  await w.flush();
  const events = await receiptEvents(ctx);
  assert.equal(
    events.map((e) => e.event.receipts!.target),
    [dm, { kind: 'thread', room_id: 'general', thread_id: 't1' }],
  );
  await w.close();
});

test('with server.receipts false nothing is recorded', async () => {
  const ctx = context({ server: { receipts: false } });
  const w = new ReceiptWriter(ctx, 60_000);
  w.mark('agent:a', 'room:one', 'read', 1, 5);
  await w.close();
  assert.equal(await ctx.store.part(receiptsPart)!.list('room:one'), []);
  assert.is((await receiptEvents(ctx)).length, 0);
});

test('a store opened without the receipts part takes no marks: nothing is written, nothing fails', async () => {
  const warned: string[] = [];
  const ctx = context({}, new MemoryStore([]), (_level, msg) => void warned.push(msg));
  const w = new ReceiptWriter(ctx, 60_000);
  w.mark('agent:a', 'room:one', 'delivered', 1, 5);
  await w.close();
  assert.is(ctx.store.part(receiptsPart), undefined);
  assert.equal(await ctx.store.eventsAfter(0, 10), []);
  assert.equal(warned, []);
});

test('the writer remembers the newest ranges of a record, where the next marks land, not all of them', async () => {
  const ctx = context();
  const w = new ReceiptWriter(ctx, 60_000);
  // Ten disjoint ranges for one reader (a reader skipping ahead ten times), each flushed.
  for (let k = 0; k < 10; k++) {
    w.mark('agent:a', 'room:one', 'delivered', k * 100 + 1, k * 100 + 10);
    await w.flush();
  }
  const [rec] = await ctx.store.part(receiptsPart)!.list('room:one');
  assert.is(rec!.ranges.length, 10, 'the store keeps every range');
  // A mark inside one of the newest ranges needs no write: the writer still knows it is stored.
  assert.is(w.markAt('agent:a', 'room:one', 'delivered', 902, 905, Date.now()), false);
  assert.is(w.markAt('agent:a', 'room:one', 'delivered', 602, 605, Date.now()), false);
  // An old one is written again (it changes nothing stored): the writer forgot it, to stay small.
  assert.is(w.markAt('agent:a', 'room:one', 'delivered', 2, 5, Date.now()), true);
  await w.flush();
  assert.is((await ctx.store.part(receiptsPart)!.list('room:one'))[0]!.ranges.length, 10);
  await w.close();
});

test('a reader that reads on extends the range the writer remembers: marks inside it are not written again', async () => {
  const ctx = context();
  const w = new ReceiptWriter(ctx, 60_000);
  w.mark('agent:a', 'room:one', 'delivered', 1, 10);
  await w.flush();
  w.mark('agent:a', 'room:one', 'delivered', 11, 20); // adjacent
  await w.flush();
  w.mark('agent:a', 'room:one', 'delivered', 5, 30); // overlapping
  await w.flush();
  const [rec] = await ctx.store.part(receiptsPart)!.list('room:one');
  assert.equal(
    rec!.ranges.map(([lo, hi]) => [lo, hi]),
    [[1, 30]],
  );
  assert.is(w.markAt('agent:a', 'room:one', 'delivered', 1, 30, Date.now()), false, 'all of 1..30 is known');
  assert.is(w.markAt('agent:a', 'room:one', 'delivered', 30, 31, Date.now()), true, '31 is not');
  await w.close();
});

test.run();
