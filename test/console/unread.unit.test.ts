// countUnread (src/console/unread.ts): what is newer than the marker, or than when the markers began.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { countUnread } from '../../src/console/unread.js';

const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const msgs = [1, 2, 3, 4].map((n) => ({ id: `m${n}`, created_at: at(n) }));

test('counts the messages after the marked one', () => {
  assert.equal(countUnread(msgs, { message_id: 'm2', at: at(2) }, at(0), false), { unread: 2, more: false });
});

test('a marked message out of the window counts by time', () => {
  assert.equal(countUnread(msgs, { message_id: 'old', at: at(3) }, at(0), false), { unread: 1, more: false });
});

test('without a marker, what came after the start counts', () => {
  assert.equal(countUnread(msgs, undefined, at(2), false), { unread: 2, more: false });
});

test('a full window that is all unread is a lower bound', () => {
  assert.equal(countUnread(msgs, undefined, at(0), true), { unread: 4, more: true });
});

test('nothing unread when the newest is marked', () => {
  assert.equal(countUnread(msgs, { message_id: 'm4', at: at(4) }, at(0), true), { unread: 0, more: false });
});

test('a deleted message (a tombstone) keeps its place but is not counted', () => {
  const withTombstone = msgs.map((m) => (m.id === 'm3' ? { ...m, deleted_at: at(9) } : m));
  assert.equal(countUnread(withTombstone, { message_id: 'm2', at: at(2) }, at(0), false), { unread: 1, more: false });
  assert.equal(countUnread(withTombstone, { message_id: 'm3', at: at(3) }, at(0), false), { unread: 1, more: false });
});

test.run();
