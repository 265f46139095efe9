// Cursor pagination (src/protocol/pagination.ts) and the list query parser (src/http/query.ts).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_LIMIT, MAX_LIMIT, UnknownCursor, pageOf, paginate, type Window } from '../../src/protocol/pagination.js';
import { windowOf } from '../../src/http/query.js';
import { AppError } from '../../src/errors.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `m${i + 1}`);
const self = (s: string) => s;
const page = (items: string[], w: Window) => {
  const s = paginate(items, self, w);
  return { items: s.items, page: pageOf(s, self) };
};

const p = suite('paging a list ordered oldest first');

p('an empty list gives an empty page with nothing more', () => {
  assert.equal(page([], { limit: 10 }), { items: [], page: { has_more: false } });
});

p('without cursors it returns the newest limit items, oldest first', () => {
  assert.equal(page(ids(5), { limit: 2 }), { items: ['m4', 'm5'], page: { has_more: true, next_before: 'm4' } });
});

p('a list of exactly limit items fits in one page with nothing more', () => {
  assert.equal(page(ids(3), { limit: 3 }), { items: ['m1', 'm2', 'm3'], page: { has_more: false } });
});

p('before returns the newest limit items older than the cursor', () => {
  assert.equal(page(ids(5), { limit: 2, before: 'm4' }), { items: ['m2', 'm3'], page: { has_more: true, next_before: 'm2' } });
  assert.equal(page(ids(5), { limit: 2, before: 'm3' }), { items: ['m1', 'm2'], page: { has_more: false } });
});

p('before the oldest item is an empty page', () => {
  assert.equal(page(ids(3), { limit: 2, before: 'm1' }), { items: [], page: { has_more: false } });
});

p('after returns the oldest limit items newer than the cursor', () => {
  assert.equal(page(ids(5), { limit: 2, after: 'm1' }), { items: ['m2', 'm3'], page: { has_more: true, next_before: 'm2' } });
  assert.equal(page(ids(5), { limit: 2, after: 'm3' }), { items: ['m4', 'm5'], page: { has_more: false, next_before: 'm4' } });
});

p('after the newest item is an empty page', () => {
  assert.equal(page(ids(3), { limit: 2, after: 'm3' }), { items: [], page: { has_more: false } });
});

p('before and after together page inside the window between them', () => {
  assert.equal(page(ids(6), { limit: 2, after: 'm1', before: 'm6' }), { items: ['m2', 'm3'], page: { has_more: true, next_before: 'm2' } });
  assert.equal(page(ids(6), { limit: 10, after: 'm1', before: 'm6' }), {
    items: ['m2', 'm3', 'm4', 'm5'],
    page: { has_more: false, next_before: 'm2' },
  });
});

p('a window whose after is not older than its before is empty', () => {
  assert.equal(page(ids(5), { limit: 2, after: 'm3', before: 'm3' }), { items: [], page: { has_more: false } });
  assert.equal(page(ids(5), { limit: 2, after: 'm4', before: 'm2' }), { items: [], page: { has_more: false } });
});

p('walking next_before visits every item exactly once', () => {
  const all = ids(7);
  const seen: string[] = [];
  let w: Window = { limit: 3 };
  for (;;) {
    const r = page(all, w);
    seen.unshift(...r.items);
    if (!r.page.next_before) break;
    w = { limit: 3, before: r.page.next_before };
  }
  assert.equal(seen, all);
});

p('an unknown cursor throws UnknownCursor naming it', () => {
  for (const w of [
    { limit: 2, before: 'nope' },
    { limit: 2, after: 'nope' },
  ]) {
    try {
      paginate(ids(3), self, w);
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, UnknownCursor);
      assert.is((err as UnknownCursor).cursor, 'nope');
    }
  }
});

p('a cursor is looked up by the item id, not its position', () => {
  const items = [{ id: 'b' }, { id: 'a' }, { id: 'c' }];
  const s = paginate(items, (x) => x.id, { limit: 5, after: 'b' });
  assert.equal(s.items, [{ id: 'a' }, { id: 'c' }]);
});

const q = suite('the limit, before and after query parameters');
const w = (qs: string) => windowOf(new URLSearchParams(qs));
const badRequest = (qs: string, path: string) => {
  try {
    w(qs);
    assert.unreachable(`${qs} should be refused`);
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).status, 400);
    assert.ok((err as AppError).message.startsWith(`${path}:`), (err as AppError).message);
  }
};

q('limit defaults to 100 and the maximum is 500', () => {
  assert.is(DEFAULT_LIMIT, 100);
  assert.is(MAX_LIMIT, 500);
  assert.equal(w(''), { limit: 100 });
});

q('a limit above 500 is capped at 500', () => {
  assert.equal(w('limit=500'), { limit: 500 });
  assert.equal(w('limit=501'), { limit: 500 });
  assert.equal(w('limit=100000'), { limit: 500 });
  assert.equal(w('limit=99999999999999999999'), { limit: 500 });
});

q('a limit of 0, negative, fractional or not a number is a 400 naming query.limit', () => {
  for (const v of ['0', '-1', '1.5', 'abc', '', '1e3', ' 5', '000']) badRequest(`limit=${encodeURIComponent(v)}`, 'query.limit');
});

q('before and after pass through as cursors', () => {
  assert.equal(w('limit=5&before=m9&after=m2'), { limit: 5, before: 'm9', after: 'm2' });
});

q('an empty or oversized cursor is a 400', () => {
  badRequest('before=', 'query.before');
  badRequest(`after=${'x'.repeat(257)}`, 'query.after');
});

p.run();
q.run();
