// Cursor pagination over an ordered list (oldest first). The cursor is an item id (the contract):
// `before` returns the newest `limit` items older than it, `after` the oldest `limit` newer than it,
// both returned oldest first. An id that is not in the list is an unknown cursor.

import type { Page } from './types.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

export interface Window {
  limit: number;
  before?: string;
  after?: string;
}

export interface Sliced<T> {
  items: T[];
  has_more: boolean;
  has_older: boolean;
}

export class UnknownCursor extends Error {
  constructor(readonly cursor: string) {
    super(`unknown cursor ${JSON.stringify(cursor)}`);
    this.name = 'UnknownCursor';
  }
}

/** Pages an in-memory list that is ordered oldest first. Throws UnknownCursor. */
export function paginate<T>(items: readonly T[], idOf: (item: T) => string, w: Window): Sliced<T> {
  const indexOf = (cursor: string): number => {
    const i = items.findIndex((item) => idOf(item) === cursor);
    if (i < 0) throw new UnknownCursor(cursor);
    return i;
  };
  const lo = w.after !== undefined ? indexOf(w.after) + 1 : 0; // first index in the window
  const hi = w.before !== undefined ? indexOf(w.before) : items.length; // one past the last
  if (hi <= lo) return { items: [], has_more: false, has_older: lo > 0 };
  if (w.after !== undefined) {
    const end = Math.min(hi, lo + w.limit);
    return { items: items.slice(lo, end), has_more: end < hi, has_older: lo > 0 };
  }
  const start = Math.max(lo, hi - w.limit);
  return { items: items.slice(start, hi), has_more: start > lo, has_older: start > 0 };
}

/** The wire Page of a sliced result. */
export function pageOf<T>(s: Sliced<T>, idOf: (item: T) => string): Page {
  const page: Page = { has_more: s.has_more };
  if (s.has_older && s.items.length > 0) page.next_before = idOf(s.items[0]!);
  return page;
}
