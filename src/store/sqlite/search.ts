// Full-text search in the sqlite backend. The index is the search worker's (search-worker.ts,
// search-db.ts): it answers candidate seqs, newest first, among the messages in the caller's scope
// and filters. What a search returns is decided here, against the store's rows as they are now:
// a candidate must still be stored (a purge may have taken it), still be in the caller's scope and
// filters (checked again on the message itself, so the answer never rests on the derived index
// alone), and still hold the words (the index is contentless, so an edited message keeps its old
// words there and a deleted one its words: `current` below). Candidates refused leave a page
// short: the next ones below are read, twice as many each time.

import type { SqlValue } from 'sql.js';
import { ftsMatch, indexText, matchesAll, type SearchTerms } from '../../protocol/search-text.js';
import type { Message } from '../../protocol/types.js';
import { StoreError, type PageResult, type SearchQuery } from '../types.js';
import type { Db } from './db.js';
import type { CandidateQuery } from './search-db.js';

/** Most candidates one read asks for when it reads on past refused ones. */
const READ_ON_MAX = 1024;

const BODIES = 'SELECT seq, body FROM messages WHERE seq IN (SELECT value FROM json_each(?))';
const BY_ID = 'SELECT seq, body FROM messages WHERE id = ?';

/** Whether `m` is in the caller's scope and the search's filters (as the index's scope row says it). */
function inScope(m: Message, q: SearchQuery): boolean {
  const t = m.target;
  const room = t.kind === 'dm' ? undefined : t.room_id;
  const dm = t.kind === 'dm' ? t.dm_id : undefined;
  if (!(room !== undefined && q.scope.room_ids.includes(room)) && !(dm !== undefined && q.scope.dm_ids.includes(dm))) return false;
  if (q.room_id !== undefined && room !== q.room_id) return false;
  if (q.thread_id !== undefined && (t.kind !== 'thread' || t.thread_id !== q.thread_id)) return false;
  if (q.dm_id !== undefined && dm !== q.dm_id) return false;
  return q.from === undefined || `${m.from.network_id}:${m.from.id}` === q.from;
}

/**
 * Whether a candidate the index found is found by `t`: a message never edited is (the index holds
 * only its words), an edited one only by its current words, a deleted one never.
 */
function current(m: Message, t: SearchTerms): boolean {
  if (m.deleted_at !== undefined) return false;
  return m.edited_at === undefined || matchesAll(t, indexText(m).split(' '));
}

/** One page of a search; `candidates` asks the search worker. */
export async function searchPage(
  db: Db,
  candidates: (q: CandidateQuery) => Promise<number[]>,
  q: SearchQuery,
): Promise<PageResult<Message>> {
  const base: CandidateQuery = {
    match: ftsMatch(q.terms),
    room_ids: q.scope.room_ids,
    dm_ids: q.scope.dm_ids,
    ...(q.room_id !== undefined ? { room_id: q.room_id } : {}),
    ...(q.thread_id !== undefined ? { thread_id: q.thread_id } : {}),
    ...(q.dm_id !== undefined ? { dm_id: q.dm_id } : {}),
    ...(q.from !== undefined ? { from: q.from } : {}),
    limit: 0,
  };
  let below: number | undefined;
  if (q.before !== undefined) {
    // The cursor must be a message this caller may find with these filters, as a history cursor
    // must be in its list: anything else is unknown, which also says nothing about hidden ones.
    const r = db.one(BY_ID, [q.before]);
    const m = r && (JSON.parse(r[1] as string) as Message);
    if (!m || m.deleted_at !== undefined || indexText(m) === '' || !inScope(m, q))
      throw new StoreError('unknown_cursor', `unknown cursor ${JSON.stringify(q.before)}`);
    below = Number(r[0]);
  }
  const limit = Math.max(0, Math.min(Math.floor(q.limit), 1000));
  const items: Message[] = [];
  for (let want = limit + 1; ; want = Math.min(2 * want, READ_ON_MAX)) {
    const seqs = await candidates({ ...base, limit: want, ...(below !== undefined ? { below } : {}) });
    if (seqs.length > 0) {
      const rows = new Map<number, string>();
      for (const [seq, body] of db.all(BODIES, [JSON.stringify(seqs)]) as [SqlValue, SqlValue][]) rows.set(Number(seq), body as string);
      for (const seq of seqs) {
        const body = rows.get(seq);
        if (body === undefined) continue;
        const m = JSON.parse(body) as Message;
        if (inScope(m, q) && current(m, q.terms)) items.push(m);
      }
    }
    if (seqs.length < want || items.length > limit) break;
    below = seqs[seqs.length - 1];
  }
  const more = items.length > limit;
  return { items: items.slice(0, limit), has_more: more, has_older: more };
}
