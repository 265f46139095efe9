// The prefetch's pure parts: sqlite's varints, interior table pages, the descent by rowid, and
// which page runs a read ahead takes (engine/btree-pages.ts, engine/prefetch.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { childFor, parseInterior, readRanges, readVarint } from '../../../src/store/sqlite/engine/btree-pages.js';
import { prefetchPlan } from '../../../src/store/sqlite/engine/prefetch.js';

/** sqlite's varint encoding of a non-negative integer below 2^53. */
function varint(n: number): number[] {
  if (n >= 2 ** 56) throw new Error('too big for this helper');
  const groups: number[] = [];
  let v = n;
  do {
    groups.unshift(v % 128);
    v = Math.floor(v / 128);
  } while (v > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g));
}

/** An interior table page of `size` bytes: cells (left child, key), the right-most child. */
function interiorPage(cells: [number, number][], right: number, pgno = 2, size = 4096): Uint8Array {
  const page = new Uint8Array(size);
  const view = new DataView(page.buffer);
  const h = pgno === 1 ? 100 : 0;
  page[h] = 0x05;
  view.setUint16(h + 3, cells.length);
  view.setUint32(h + 8, right);
  let content = size;
  cells.forEach(([child, key], i) => {
    const bytes = [0, 0, 0, 0, ...varint(key)];
    content -= bytes.length;
    page.set(bytes, content);
    view.setUint32(content, child);
    view.setUint16(h + 12 + 2 * i, content);
  });
  return page;
}

test('varints read as sqlite writes them, one to nine bytes', () => {
  for (const n of [0, 1, 127, 128, 240, 16_383, 16_384, 1_000_000, 2 ** 31, 2 ** 40 + 5]) {
    const bytes = Uint8Array.from([7, ...varint(n), 9]);
    assert.equal(readVarint(bytes, 1), { value: n, next: bytes.length - 1 }, String(n));
  }
  // Nine bytes: eight 7-bit groups, then a whole byte.
  const nine = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x05]);
  assert.equal(readVarint(nine, 0), { value: 256 + 5, next: 9 });
});

test('an interior table page gives its keys, children and right-most child; any other page gives nothing', () => {
  const page = interiorPage(
    [
      [10, 100],
      [11, 250],
      [12, 1_000_000],
    ],
    13,
  );
  assert.equal(parseInterior(page, 2), { keys: [100, 250, 1_000_000], children: [10, 11, 12], right: 13 });
  // Page 1 has the file header first.
  assert.equal(parseInterior(interiorPage([[4, 9]], 5, 1), 1), { keys: [9], children: [4], right: 5 });
  const leaf = new Uint8Array(4096);
  leaf[0] = 0x0d;
  assert.is(parseInterior(leaf, 2), undefined);
});

test('a rowid goes to the first child whose key is at least it, past the last key to the right-most child', () => {
  const node = { keys: [100, 250, 400], children: [10, 11, 12], right: 13 };
  assert.is(childFor(node, 1), 10);
  assert.is(childFor(node, 100), 10);
  assert.is(childFor(node, 101), 11);
  assert.is(childFor(node, 250), 11);
  assert.is(childFor(node, 399), 12);
  assert.is(childFor(node, 401), 13);
  assert.is(childFor({ keys: [], children: [], right: 7 }, 5), 7);
});

test('pages a few apart share a run, the pages between included; farther ones start a new run', () => {
  assert.equal(readRanges([], 3, 64), []);
  assert.equal(readRanges([5], 3, 64), [{ first: 5, count: 1 }]);
  // 5..9 is a gap of 3 pages (6, 7, 8) at most: one run; 14 is 4 pages past 9: a run of its own.
  assert.equal(readRanges([9, 5, 14, 5], 3, 64), [
    { first: 5, count: 5 },
    { first: 14, count: 1 },
  ]);
  assert.equal(readRanges([1, 2, 3, 4], 0, 64), [{ first: 1, count: 4 }]);
  assert.equal(readRanges([1, 3], 0, 64), [
    { first: 1, count: 1 },
    { first: 3, count: 1 },
  ]);
});

test('no run is longer than the longest read', () => {
  const pages = Array.from({ length: 10 }, (_, i) => 100 + i);
  assert.equal(readRanges(pages, 3, 4), [
    { first: 100, count: 4 },
    { first: 104, count: 4 },
    { first: 108, count: 2 },
  ]);
});

test('a read ahead is planned only when its runs take fewer calls than its pages would', () => {
  // Rows of one conversation written in a burst: neighbouring pages, one run.
  const burst = Array.from({ length: 17 }, (_, i) => 500 + i);
  assert.equal(prefetchPlan(burst), [{ first: 500, count: 17 }]);
  // Rows of a conversation interleaved with many others: pages 16 apart, a run each: nothing to gain.
  assert.equal(prefetchPlan(Array.from({ length: 20 }, (_, i) => 1000 + 16 * i)), []);
  // The same page for several rows counts once.
  assert.equal(prefetchPlan([7, 7, 7, 7]), []);
});

test.run();
