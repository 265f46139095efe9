// An attachment's delivery ledger in process against a real memory store: ACKs only note a
// cursor, and the receipt writer's batch turns them into ranges, losing none.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/config/load.js';
import { Broker } from '../../src/events/broker.js';
import { DeliveryLedger } from '../../src/receipts/ledger.js';
import { NO_EXTENSIONS, type NetworkContext } from '../../src/network/context.js';
import type { Target } from '../../src/protocol/types.js';
import { ReceiptWriter } from '../../src/receipts/writer.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { receiptsPart } from '../../src/store/receipts/part.js';

function context(): NetworkContext {
  const { config } = parseConfig({ network: { id: 'home' }, store: { backend: 'memory' } }, { baseDir: tmpdir(), env: {} });
  return {
    config,
    store: new MemoryStore(),
    broker: new Broker(),
    log: () => {},
    version: 'test',
    configWarnings: [],
    extensions: NO_EXTENSIONS,
  };
}

const room = (id: string): Target => ({ kind: 'room', room_id: id });
const dm = (id: string): Target => ({ kind: 'dm', dm_id: id, participant_ids: ['ann', 'bob'] });

/** The stored delivered ranges of `reader` in `conv`, without their times. */
async function delivered(ctx: NetworkContext, conv: string, reader = 'agent:ann'): Promise<number[][]> {
  const rec = (await ctx.store.part(receiptsPart)!.list(conv)).find((r) => r.reader === reader && r.kind === 'delivered');
  return rec ? rec.ranges.map(([a, b]) => [a, b]) : [];
}

test('an ACK marks nothing until the batch, which covers each conversation up to the cursor', async () => {
  const ctx = context();
  const w = new ReceiptWriter(ctx);
  const l = new DeliveryLedger(w, 'ann', 10);
  l.sent(11, room('general'));
  l.sent(12, dm('d1'));
  l.sent(13, room('general'));
  l.sent(14, { kind: 'thread', room_id: 'general', thread_id: 't1' });
  l.ackUpTo(12);
  assert.is(w.idle, false);
  assert.equal(await ctx.store.part(receiptsPart)!.list('room:general'), []);
  await w.flush();
  assert.equal(await delivered(ctx, 'room:general'), [[11, 11]]);
  assert.equal(await delivered(ctx, 'dm:d1'), [[11, 12]]);
  assert.equal(await delivered(ctx, 'thread:t1'), []);
  l.ackUpTo(14);
  await w.flush();
  assert.equal(await delivered(ctx, 'room:general'), [[11, 13]]);
  assert.equal(await delivered(ctx, 'thread:t1'), [[11, 14]]);
  assert.is(w.idle, true);
  await w.close();
});

test('a thousand ACKs between two batches make one write, and an ACK after the attachment ended is still written', async () => {
  const ctx = context();
  const w = new ReceiptWriter(ctx);
  const l = new DeliveryLedger(w, 'ann', 0);
  for (let seq = 1; seq <= 1000; seq++) {
    l.sent(seq, room('general'));
    l.ackUpTo(seq);
  }
  // The attachment is gone (nothing refers to the ledger but the writer): its ACKs still count.
  await w.flush();
  assert.equal(await delivered(ctx, 'room:general'), [[1, 1000]]);
  const events = (await ctx.store.eventsAfter(0, 10_000)).filter((e) => e.event.type === 'message.receipts');
  assert.is(events.length, 1);
  assert.equal(events[0]!.event.receipts!.marks, [
    { reader: { type: 'agent', id: 'ann' }, kind: 'delivered', up_to_seq: 1000, at: events[0]!.event.receipts!.marks[0]!.at },
  ]);
  await w.close();
});

test('an agent that left a room and came back has each stay as its own range, even within one batch', async () => {
  const ctx = context();
  const w = new ReceiptWriter(ctx);
  const l = new DeliveryLedger(w, 'ann', 0);
  l.sent(1, room('general'));
  l.sent(2, room('general'));
  l.joinedRoom('general', 5);
  l.sent(6, room('general'));
  l.ackUpTo(6);
  await w.flush();
  assert.equal(await delivered(ctx, 'room:general'), [
    [1, 2],
    [6, 6],
  ]);
  await w.close();
});

test('any order of sends, ACKs and batches marks every conversation up to its last acknowledged message', async () => {
  const convs = [room('r1'), room('r2'), dm('d1'), { kind: 'thread', room_id: 'r1', thread_id: 't1' } as Target];
  const keys = ['room:r1', 'room:r2', 'dm:d1', 'thread:t1'];
  const op = fc.oneof(
    fc.record({ t: fc.constant('send' as const), conv: fc.integer({ min: 0, max: 3 }), gap: fc.integer({ min: 1, max: 3 }) }),
    fc.record({ t: fc.constant('ack' as const), back: fc.integer({ min: 0, max: 5 }) }),
    fc.record({ t: fc.constant('flush' as const) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 200 }), async (ops) => {
      const ctx = context();
      const w = new ReceiptWriter(ctx);
      const l = new DeliveryLedger(w, 'ann', 0);
      const sent: { seq: number; conv: number }[] = [];
      const expected = new Map<string, number>();
      let seq = 0;
      let acked = 0;
      for (const o of ops) {
        if (o.t === 'send') {
          seq += o.gap;
          sent.push({ seq, conv: o.conv });
          l.sent(seq, convs[o.conv]!);
        } else if (o.t === 'ack') {
          const upTo = sent[sent.length - 1 - o.back]?.seq ?? 0;
          if (upTo <= acked) continue;
          acked = upTo;
          l.ackUpTo(upTo);
          for (const s of sent) if (s.seq <= upTo) expected.set(keys[s.conv]!, s.seq);
        } else await w.flush();
      }
      await w.flush();
      for (const key of keys) {
        const hi = expected.get(key);
        assert.equal(await delivered(ctx, key), hi === undefined ? [] : [[1, hi]], key);
      }
      await w.close();
    }),
    { numRuns: 100 },
  );
});

test('a runtime that never ACKs is remembered for its last 4,096 messages, and a late ACK still covers them all', async () => {
  const ctx = context();
  const w = new ReceiptWriter(ctx);
  const l = new DeliveryLedger(w, 'ann', 0);
  for (let seq = 1; seq <= 10_000; seq++) l.sent(seq, seq % 2 ? room('general') : dm('d1'));
  await w.flush();
  assert.equal(await ctx.store.part(receiptsPart)!.list('room:general'), []);
  l.ackUpTo(10_000);
  await w.flush();
  assert.equal(await delivered(ctx, 'room:general'), [[1, 9999]]);
  assert.equal(await delivered(ctx, 'dm:d1'), [[1, 10_000]]);
  await w.close();
});

test.run();
