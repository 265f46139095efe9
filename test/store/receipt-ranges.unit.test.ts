import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ByRecord, covering, covers, MAX_RANGES, mergeRange, type ReceiptRange } from '../../src/store/receipts/records.js';

const r = (lo: number, hi: number, at = 't0'): ReceiptRange => [lo, hi, at];

test('a mark inside a range changes nothing', () => {
  assert.is(mergeRange([r(1, 10)], 3, 5, 't1'), undefined);
  assert.is(mergeRange([], 0, 5, 't1'), undefined, 'seqs start at 1');
  assert.is(mergeRange([], 5, 4, 't1'), undefined, 'an empty range');
});

test('overlapping and adjacent ranges join and take the new time; distant ones stay apart', () => {
  assert.equal(mergeRange([r(1, 10)], 11, 12, 't1'), [r(1, 12, 't1')]);
  assert.equal(mergeRange([r(1, 3), r(8, 9)], 3, 8, 't1'), [r(1, 9, 't1')]);
  assert.equal(mergeRange([r(1, 3)], 5, 6, 't1'), [r(1, 3), r(5, 6, 't1')]);
  assert.equal(mergeRange([r(5, 6)], 1, 2, 't1'), [r(1, 2, 't1'), r(5, 6)]);
});

test('past the cap the oldest ranges are forgotten', () => {
  let ranges: ReceiptRange[] = [];
  for (let i = 0; i < MAX_RANGES + 3; i++) ranges = mergeRange(ranges, i * 10 + 1, i * 10 + 2, 't')!;
  assert.is(ranges.length, MAX_RANGES);
  assert.is(ranges[0]![0], 31);
});

test('finds the range covering a seq', () => {
  assert.equal(covering([r(1, 3), r(8, 9)], 8), r(8, 9));
  assert.is(covering([r(1, 3), r(8, 9)], 5), undefined);
});

test('covers: one range must hold all of lo..hi', () => {
  assert.ok(covers([r(1, 3), r(5, 9)], 5, 9));
  assert.not.ok(covers([r(1, 3), r(5, 9)], 3, 5), 'split over two ranges');
  assert.not.ok(covers([], 1, 1));
});

test('ByRecord keeps a value per reader, conversation and kind, and counts them', () => {
  const m = new ByRecord<number>();
  m.set('agent:a', 'room:x', 'delivered', 1);
  m.set('agent:a', 'room:x', 'read', 2);
  m.set('agent:b', 'room:x', 'delivered', 3);
  m.set('agent:a', 'dm:y', 'delivered', 4);
  m.set('agent:a', 'room:x', 'delivered', 5);
  assert.is(m.size, 4, 'setting a record again does not count it twice');
  assert.is(m.get('agent:a', 'room:x', 'delivered'), 5);
  assert.is(m.get('agent:a', 'room:x', 'read'), 2);
  assert.is(m.get('agent:b', 'room:x', 'read'), undefined);
  assert.equal([...m.convs()].sort(), ['dm:y', 'room:x']);
  assert.equal(m.inConv('room:x').sort(), [2, 3, 5]);
  const seen: string[] = [];
  m.forEach((v, reader, conv, kind) => seen.push(`${kind} ${reader} ${conv} ${v}`));
  assert.equal(seen.sort(), [
    'delivered agent:a dm:y 4',
    'delivered agent:a room:x 5',
    'delivered agent:b room:x 3',
    'read agent:a room:x 2',
  ]);
  m.clear();
  assert.is(m.size, 0);
  assert.is(m.get('agent:a', 'room:x', 'delivered'), undefined);
});

test.run();
