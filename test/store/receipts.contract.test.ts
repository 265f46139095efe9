// The receipts concern (src/store/receipts/) on every backend, through the store as the server uses
// it: what one batch decides against its own earlier effects (the concern's overlay), what each
// backend's part applies and reads back (live and after a reopen: sqlite replays its journal through
// the part), that a refused batch writes none of its marks, that the part claims only its own
// effects, and that a store opened without it keeps no receipts; that the event log keeps one
// `message.receipts` event per conversation, and that one reader reading 1,000 messages in order
// across interleaved conversations keeps the stored size flat (#43 part 8).
// test/store/receipts.test.ts holds the marks' rules one write at a time.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Effect } from '../../src/store/effects.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { openStore } from '../../src/store/open.js';
import { MemoryReceipts } from '../../src/store/receipts/memory.js';
import type { ReceiptEffect, ReceiptMarkOp, ReceiptPutEffect } from '../../src/store/receipts/ops.js';
import { receiptsPart } from '../../src/store/receipts/part.js';
import { postgresReceipts } from '../../src/store/receipts/postgres.js';
import type { ReceiptKind } from '../../src/store/receipts/records.js';
import { sqliteReceipts } from '../../src/store/receipts/sqlite.js';
import type { Store, WriteOp, WriteResult } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import { codeOf, createRoom, event, inRoom, members, msg, send } from '../helpers/store-fixtures.js';

const AT = '2026-01-01T00:00:00.000Z';
const mark = (lo: number, hi: number, reader = 'agent:a', kind: ReceiptKind = 'delivered', conv = 'room:r1'): ReceiptMarkOp => ({
  op: 'receipt.mark',
  marks: [{ reader, conv, kind, lo, hi, at: AT }],
});
const changed = (r: WriteResult) => r.outcomes.map((o) => (o.op === 'receipt.mark' ? o.changed.length : o.op));
const stored = async (store: Store, conv = 'room:r1') =>
  (await store.part(receiptsPart)!.list(conv)).map((r) => `${r.reader} ${r.kind} ${r.ranges.map(([a, b]) => `${a}-${b}`).join(',')}`);

/** A conversation's `message.receipts` event, named by its id, with its marks left empty. */
const noticeOf = (conv: string, id: string) => ({
  conv,
  event: event('message.receipts', { id, receipts: { target: { kind: 'room', room_id: conv.slice(5) }, marks: [] } }),
});
let noticed = 0;
/** A mark that moves (a seq of its own each time) with its conversation's event. */
const notice = (conv: string, id: string): WriteOp => ({
  op: 'receipt.mark',
  marks: [{ reader: 'agent:n', conv, kind: 'read', lo: ++noticed, hi: noticed, at: AT }],
  notices: [noticeOf(conv, id)],
});
/** The ids of the stored message.receipts events, in seq order. */
const receiptEvents = async (store: Store) =>
  (await store.eventsAfter(0, 100_000)).filter((e) => e.event.type === 'message.receipts').map((e) => e.event.id);
/** The bytes receipts keep: both rooms' records and the message.receipts events, as JSON. */
const storedSize = async (store: Store) => {
  const records = [...(await store.part(receiptsPart)!.list('room:r1')), ...(await store.part(receiptsPart)!.list('room:r2'))];
  const events = (await store.eventsAfter(0, 100_000)).filter((e) => e.event.type === 'message.receipts');
  return JSON.stringify(records).length + JSON.stringify(events.map((e) => e.event)).length;
};

for (const backend of BACKENDS) {
  const test = suite(`the receipts concern (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-receipts-contract-', async (s) => {
    store = s;
    await store.write([createRoom('r1')]);
  });

  test('later marks of a batch see what earlier ones did', async () => {
    const r = await store.write([mark(1, 2), mark(3, 4), mark(2, 3), mark(9, 9, 'agent:b', 'read'), mark(5, 5)]);
    assert.equal(changed(r), [1, 1, 0, 1, 1]);
    assert.equal(await stored(store), ['agent:a delivered 1-5', 'agent:b read 9-9']);
  });

  test('a batch that grows a stored record and makes a new one stores both', async () => {
    await store.write([mark(1, 3)]);
    const r = await store.write([mark(4, 6), mark(8, 8), mark(2, 2, 'agent:b'), mark(3, 3, 'agent:b')]);
    assert.equal(changed(r), [1, 1, 1, 1]);
    assert.equal(await stored(store), ['agent:a delivered 1-6,8-8', 'agent:b delivered 2-3']);
  });

  test('a refused batch writes none of its marks', async () => {
    assert.ok(await codeOf(() => store.write([mark(1, 2), members('nope', ['x'])])));
    assert.equal(await stored(store), []);
  });

  test('the event log keeps one message.receipts event per conversation: each replaces the one before', async () => {
    for (let i = 0; i < 3; i++) await store.write([notice('room:r1', `a${i}`), notice('dm:d1', `b${i}`)]);
    await store.write([notice('room:r1', 'a3')]);
    const want = ['b2', 'a3'];
    assert.equal(await receiptEvents(store), want);
    if (backend !== 'memory') {
      await store.close();
      store = await open();
      assert.equal(await receiptEvents(store), want, 'the same after a reopen (sqlite replays its journal)');
    }
    const s = await store.stats();
    assert.is(s.events, (await store.eventsAfter(0, 1000)).length, 'the event count leaves the replaced ones out');
    await store.write([notice('room:r1', 'a4')]);
    assert.equal(await receiptEvents(store), ['b2', 'a4']);
  });

  test("a mark's events: only conversations whose marks moved get one, with each reader's furthest mark of each kind", async () => {
    const marks = [
      { reader: 'agent:a', conv: 'room:r1', kind: 'delivered' as const, lo: 1, hi: 4, at: AT },
      { reader: 'agent:a', conv: 'room:r1', kind: 'delivered' as const, lo: 6, hi: 9, at: '2026-01-01T00:00:01.000Z' },
      { reader: 'human:op', conv: 'room:r1', kind: 'read' as const, lo: 2, hi: 2, at: AT },
      { reader: 'agent:a', conv: 'room:r2', kind: 'read' as const, lo: 3, hi: 3, at: AT },
    ];
    await store.write([{ op: 'receipt.mark', marks: [marks[3]!] }]);
    const r = await store.write([{ op: 'receipt.mark', marks, notices: [noticeOf('room:r1', 'e1'), noticeOf('room:r2', 'e2')] }]);
    assert.equal(changed(r), [3], 'the mark in r2 was stored before');
    const got = (await store.eventsAfter(0, 1000)).filter((e) => e.event.type === 'message.receipts').map((e) => e.event);
    assert.equal(
      got.map((e) => e.id),
      ['e1'],
      'r2, whose mark moved nothing, gets no event',
    );
    assert.equal(got[0]!.receipts, {
      target: { kind: 'room', room_id: 'r1' },
      marks: [
        { reader: { type: 'agent', id: 'a' }, kind: 'delivered', up_to_seq: 9, at: '2026-01-01T00:00:01.000Z' },
        { reader: { type: 'human', id: 'op' }, kind: 'read', up_to_seq: 2, at: AT },
      ],
    });
  });

  test('one reader reading 1,000 messages in order across interleaved conversations keeps the stored size flat', async () => {
    await store.write([createRoom('r2')]);
    // Messages alternate between the two rooms, so each room's seqs are interleaved with the other's.
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 100) {
      const batch = Array.from({ length: 100 }, (_, k) => msg(`m${i + k}`, inRoom((i + k) % 2 === 0 ? 'r1' : 'r2')));
      await store.write(batch.map((m) => send(m)));
      ids.push(...batch.map((m) => m.id));
    }
    const seqs = await store.messageSeqs(ids);
    const sizes: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const conv = i % 2 === 0 ? 'room:r1' : 'room:r2';
      const seq = seqs.get(ids[i]!)!;
      // Each message marked alone (as an MCP hand-over marks it): between two of a room's
      // messages lies the other room's.
      await store.write([
        {
          op: 'receipt.mark',
          marks: [{ reader: 'agent:a', conv, kind: 'read', lo: seq, hi: seq, at: AT }],
          notices: [noticeOf(conv, `read${i}`)],
        },
      ]);
      if (i === 99 || i === 999) sizes.push(await storedSize(store));
    }
    assert.equal(await stored(store), [`agent:a read ${seqs.get('m0')}-${seqs.get('m998')}`]);
    assert.equal(await stored(store, 'room:r2'), [`agent:a read ${seqs.get('m1')}-${seqs.get('m999')}`]);
    // The same records and events after 1,000 reads as after 100 (a seq's digits aside).
    assert.ok(sizes[1]! - sizes[0]! <= 8, `stored ${sizes[0]} bytes after 100 reads, ${sizes[1]} after 1,000`);
    assert.equal(await receiptEvents(store), ['read998', 'read999']);
  });

  test('an attachment resuming across interleaved conversations keeps one range; a skipped message stays a gap', async () => {
    await store.write([createRoom('r2')]);
    const batch = Array.from({ length: 40 }, (_, k) => msg(`g${k}`, inRoom(k % 2 === 0 ? 'r1' : 'r2')));
    await store.write(batch.map((m) => send(m)));
    const seqs = await store.messageSeqs(batch.map((m) => m.id));
    const seq = (k: number) => seqs.get(`g${k}`)!;
    // Attachments of ten messages each, every one resuming from the cursor the last ended at (a
    // message of either room): each marks from its start to its room's last message it ACKed.
    let start = seq(0) - 1;
    for (let k = 0; k < 40; k += 10) {
      const end = seq(k + 9);
      await store.write([
        { op: 'receipt.mark', marks: [{ reader: 'agent:a', conv: 'room:r1', kind: 'delivered', lo: start + 1, hi: seq(k + 8), at: AT }] },
        { op: 'receipt.mark', marks: [{ reader: 'agent:a', conv: 'room:r2', kind: 'delivered', lo: start + 1, hi: end, at: AT }] },
      ]);
      start = end;
    }
    assert.equal(await stored(store), [`agent:a delivered ${seq(0)}-${seq(38)}`]);
    assert.equal(await stored(store, 'room:r2'), [`agent:a delivered ${seq(0)}-${seq(39)}`]);
    // A reader that read g0 and g4 of r1 but not g2 between them keeps two ranges.
    await store.write([mark(seq(0), seq(0), 'agent:b', 'read'), mark(seq(4), seq(4), 'agent:b', 'read')]);
    assert.ok((await stored(store)).includes(`agent:b read ${seq(0)}-${seq(0)},${seq(4)}-${seq(4)}`));
    // Reading g2 joins them across r2's messages.
    await store.write([mark(seq(2), seq(2), 'agent:b', 'read')]);
    assert.ok((await stored(store)).includes(`agent:b read ${seq(0)}-${seq(4)}`), (await stored(store)).join('; '));
  });

  if (backend !== 'memory') {
    test("the backend's part applies the same effects again after a reopen", async () => {
      await store.write([mark(1, 2), mark(5, 6, 'human:op', 'read')]);
      await store.write([mark(3, 3), mark(1, 1, 'agent:b', 'delivered', 'dm:d1')]);
      const before = [...(await stored(store)), ...(await stored(store, 'dm:d1'))];
      await store.close();
      store = await open();
      assert.equal([...(await stored(store)), ...(await stored(store, 'dm:d1'))], before);
      assert.equal(before, ['agent:a delivered 1-3', 'human:op read 5-6', 'agent:b delivered 1-1']);
    });
  }

  test.run();
}

const parts = suite('the receipts part claims only its own effects');
const other: Effect = { op: 'pairing.delete', pairing_id: 'p1' };
const put: Effect = { op: 'receipt.put', record: { reader: 'agent:a', conv: 'room:r1', kind: 'read', ranges: [[1, 2, AT]] } };

parts('owns', () => {
  assert.is(receiptsPart.owns(other), false);
  assert.ok(receiptsPart.owns(put));
});

parts('memory', async () => {
  const m = new MemoryReceipts({ createdBetween: () => true });
  m.apply(put as ReceiptEffect);
  assert.equal(await m.reads.list('room:r1'), [{ reader: 'agent:a', conv: 'room:r1', kind: 'read', ranges: [[1, 2, AT]] }]);
  assert.equal(await m.reads.list('room:r2'), []);
});

parts('sqlite', () => {
  const ran: string[] = [];
  sqliteReceipts.apply((sql) => void ran.push(sql.split(' ')[0]!), put as ReceiptEffect);
  assert.equal(ran, ['INSERT']);
});

parts('postgres: a record the batch found is updated, one it did not is inserted, once each', () => {
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  const again: ReceiptEffect = { op: 'receipt.put', record: { ...(put as ReceiptPutEffect).record, ranges: [[1, 3, AT]] }, stored: true };
  const found: ReceiptEffect = {
    op: 'receipt.put',
    record: { reader: 'agent:b', conv: 'room:r1', kind: 'read', ranges: [[1, 1, AT]] },
    stored: true,
  };
  const ctes = postgresReceipts.ctes([put as ReceiptEffect, found, again], {
    param,
    row: (p) => `(${p.map(param).join(', ')})`,
    table: (n) => `s.${n}`,
  });
  assert.equal(
    ctes.map((c) => c.split(' ').slice(0, 3).join(' ')),
    ['UPDATE s.receipts t', 'INSERT INTO s.receipts', 'INSERT INTO s.receipt_versions'],
  );
  // Each statement takes its records as arrays, one element per record: the update the one found,
  // the insert the one not found, with the batch's last ranges; then the conversation's new version.
  const inserted = (put as ReceiptPutEffect).record;
  const version = values.at(-1);
  assert.match(String(version), /^[0-9a-f-]{36}$/);
  assert.equal(values, [
    ['room:r1'],
    ['agent:b'],
    ['read'],
    [JSON.stringify([[1, 1, AT]])],
    [inserted.conv],
    [inserted.reader],
    [inserted.kind],
    [JSON.stringify([[1, 3, AT]])],
    ['room:r1'],
    version,
  ]);
});

parts('a store opened without the part keeps no receipts and refuses its op', async () => {
  const store = await openStore({ backend: 'memory', path: '', checkpoint_bytes: 1 }, undefined, []);
  try {
    assert.is(store.part(receiptsPart), undefined);
    assert.is(await codeOf(() => store.write([mark(1, 2)])), 'corrupt');
  } finally {
    await store.close();
  }
  assert.ok(new MemoryStore().part(receiptsPart), 'a store opened with every part keeps them');
});

parts.run();
