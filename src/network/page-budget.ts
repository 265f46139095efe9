// A page of messages is capped by bytes as well as by count: a history or search page stops
// before the message that would take its JSON past the budget (it always holds at least one),
// says `has_more`, and its cursor continues exactly after the last message it holds. The store is
// read in chunks sized by what the previous chunk weighed, so a page of 1 MiB messages never
// reads a hundred of them to send four.

import { jsonOf } from '../protocol/json-cache.js';
import type { PageQuery, PageResult } from '../store/types.js';
import type { Window } from '../protocol/pagination.js';
import type { NetworkContext } from './context.js';

/** Bytes of message JSON one page carries at most (config `server.limits.page_bytes`). */
export const PAGE_BUDGET_BYTES = 4 * 1024 * 1024;
/** The byte budget of a message page under the current config. */
export const pageBudgetOf = (ctx: NetworkContext): number => ctx.config.server.limits.page_bytes ?? PAGE_BUDGET_BYTES;

/** The first store read of a page asks for at most this many messages; later reads are sized by weight. */
const FIRST_CHUNK = 25;

/** The JSON size of an item as a page carries it (computed once per object). */
export const itemBytes = (item: object): number => jsonOf(item).length;

/** One store read in walk order: `items` as the page takes them, `has_more` past the last. */
interface Chunk<T> {
  items: T[];
  has_more: boolean;
  /** Oldest-first lists: items older than the chunk's oldest exist. */
  has_older: boolean;
}

interface Walked<T> {
  /** In walk order. */
  taken: T[];
  has_more: boolean;
  /** The last chunk read, when it was read to its end (nothing cut from it). */
  whole?: Chunk<T>;
  first?: Chunk<T>;
}

/**
 * Reads chunks from `read(cursor, limit)` (each continuing after the id of the last item taken)
 * until `limit` items or `budget` bytes; the first item is always taken.
 */
async function walk<T extends { id: string }>(
  read: (cursor: string | undefined, limit: number) => Promise<Chunk<T>>,
  start: string | undefined,
  limit: number,
  budget: number,
  size: (item: T) => number,
): Promise<Walked<T>> {
  const taken: T[] = [];
  let bytes = 0;
  let cursor = start;
  let chunk = Math.min(limit, FIRST_CHUNK);
  let first: Chunk<T> | undefined;
  for (;;) {
    const c = await read(cursor, chunk);
    first ??= c;
    for (let i = 0; i < c.items.length; i++) {
      const item = c.items[i]!;
      const n = size(item);
      if (taken.length > 0 && bytes + n > budget) return { taken, has_more: true, first };
      taken.push(item);
      bytes += n;
      const last = i === c.items.length - 1;
      if (taken.length === limit) return last ? { taken, has_more: c.has_more, whole: c, first } : { taken, has_more: true, first };
    }
    if (!c.has_more || c.items.length === 0) return { taken, has_more: false, whole: c, first };
    cursor = taken[taken.length - 1]!.id;
    // Enough to fill the rest of the budget at the weight seen so far, and one more to see the cut.
    const avg = Math.max(1, bytes / taken.length);
    chunk = Math.max(1, Math.min(limit - taken.length, Math.floor((budget - bytes) / avg) + 1));
  }
}

/**
 * A page of an oldest-first list (history) under a byte budget: `before` (or no cursor) walks back
 * from the newest and keeps the newest that fit; `after` walks forward and keeps the oldest.
 */
export async function budgetedList<T extends { id: string }>(
  list: (q: PageQuery) => Promise<PageResult<T>>,
  w: Window,
  budget: number,
  size: (item: T) => number = itemBytes,
): Promise<PageResult<T>> {
  if (w.after !== undefined) {
    const r = await walk(
      async (cursor, limit) => {
        const p = await list({ ...w, limit, after: cursor! });
        return { items: p.items, has_more: p.has_more, has_older: p.has_older };
      },
      w.after,
      w.limit,
      budget,
      size,
    );
    return { items: r.taken, has_more: r.has_more, has_older: r.first?.has_older ?? false };
  }
  const r = await walk(
    async (cursor, limit) => {
      const p = await list({ ...w, limit, ...(cursor !== undefined ? { before: cursor } : {}) });
      return { items: [...p.items].reverse(), has_more: p.has_more, has_older: p.has_older };
    },
    w.before,
    w.limit,
    budget,
    size,
  );
  // Walking back, the oldest item returned is the last taken: older ones exist when some were cut,
  // or as the last chunk (read to its end) says.
  const hasOlder = r.whole ? r.whole.has_older : true;
  return { items: r.taken.reverse(), has_more: r.has_more, has_older: hasOlder };
}

/** A page of a newest-first list (search, paged by `before`) under a byte budget. */
export async function budgetedNewestFirst<T extends { id: string }>(
  list: (before: string | undefined, limit: number) => Promise<PageResult<T>>,
  before: string | undefined,
  limit: number,
  budget: number,
  size: (item: T) => number = itemBytes,
): Promise<PageResult<T>> {
  const r = await walk(
    async (cursor, n) => {
      const p = await list(cursor, n);
      return { items: p.items, has_more: p.has_more, has_older: p.has_older };
    },
    before,
    limit,
    budget,
    size,
  );
  return { items: r.taken, has_more: r.has_more, has_older: r.has_more };
}
