// Full-text search on Postgres: each message row keeps its distinct searchable words
// (protocol/search-text.ts: folded, letters and digits only) and its scoped sender; a GIN index
// over to_tsvector('simple', words) answers the terms (every word, the last one as a prefix).
// Scope and filters are conditions of the same query, so LIMIT counts only messages the caller
// may read, as in the other backends.

import type pg from 'pg';
import type { Message } from '../../protocol/types.js';
import type { SearchTerms } from '../../protocol/search-text.js';
import { StoreError, type PageResult, type SearchQuery } from '../types.js';
import { storeErrorOf } from './errors.js';
import type { Tables } from './tables.js';

/** The store contract's search query (kept under this name for the tests). */
export type PgSearchQuery = SearchQuery;

/** The tsquery of the terms: words hold only letters and digits, so none reads as an operator. */
export function tsQuery(t: SearchTerms): string {
  return t.words.map((w, i) => `${w}${t.prefix && i === t.words.length - 1 ? ':*' : ''}`).join(' & ');
}

/** Scope and filter conditions with their parameters numbered from 1. */
function scopeOf(q: PgSearchQuery): { where: string; values: unknown[] } {
  const values: unknown[] = [[...q.scope.room_ids], [...q.scope.dm_ids]];
  const conds = ["words <> ''", '(room_id = ANY($1::text[]) OR dm_id = ANY($2::text[]))'];
  const add = (col: string, v: string | undefined) => {
    if (v === undefined) return;
    values.push(v);
    conds.push(`${col} = $${values.length}`);
  };
  add('room_id', q.room_id);
  add('thread_id', q.thread_id);
  add('dm_id', q.dm_id);
  add('sender', q.from);
  return { where: conds.join(' AND '), values };
}

export async function searchMessages(pool: pg.Pool, T: Tables, q: PgSearchQuery): Promise<PageResult<Message>> {
  const { where, values } = scopeOf(q);
  try {
    let below = '';
    const args = [...values];
    if (q.before !== undefined) {
      // The cursor must be a message this caller may find with these filters, as a history cursor
      // must be in its list: anything else is unknown, which also says nothing about hidden ones.
      const r = await pool.query(`SELECT seq FROM ${T.messages} WHERE id = $${values.length + 1} AND ${where}`, [...values, q.before]);
      if (r.rowCount === 0) throw new StoreError('unknown_cursor', `unknown cursor ${JSON.stringify(q.before)}`);
      args.push(r.rows[0].seq);
      below = ` AND seq < $${args.length}`;
    }
    const limit = Math.max(0, Math.min(Math.floor(q.limit), 1000));
    args.push(tsQuery(q.terms), limit + 1);
    const rows = await pool.query<{ body: string }>(
      `SELECT body FROM ${T.messages} WHERE to_tsvector('simple'::regconfig, words) @@ to_tsquery('simple'::regconfig, $${args.length - 1}) ` +
        `AND ${where}${below} ORDER BY seq DESC LIMIT $${args.length}`,
      args,
    );
    const more = rows.rows.length > limit;
    return { items: rows.rows.slice(0, limit).map((r) => JSON.parse(r.body) as Message), has_more: more, has_older: more };
  } catch (err) {
    throw storeErrorOf(err);
  }
}
