// Full-text search in the memory backend: each message's words are kept beside it, and a search
// walks them newest first, counting only messages inside the caller's scope and filters (the same
// conditions the sqlite backend puts in its query).

import type { Message } from '../../protocol/types.js';
import { matchesAll, searchableTexts, wordsOf } from '../../protocol/search-text.js';
import { StoreError, type PageResult, type SearchQuery } from '../types.js';

interface Entry {
  message: Message;
  words: string[];
  room_id?: string;
  thread_id?: string;
  dm_id?: string;
  sender: string;
}

export class MemorySearch {
  /** Messages with searchable text, oldest first. */
  private readonly entries: Entry[] = [];
  private readonly byId = new Map<string, number>();

  /** Indexes a stored message (the store's own copy: it is never changed afterwards). */
  add(m: Message): void {
    const words = searchableTexts(m).flatMap(wordsOf);
    if (words.length === 0) return;
    const t = m.target;
    this.byId.set(m.id, this.entries.length);
    this.entries.push({
      message: m,
      words: [...new Set(words)],
      ...(t.kind === 'dm' ? { dm_id: t.dm_id } : { room_id: t.room_id }),
      ...(t.kind === 'thread' ? { thread_id: t.thread_id } : {}),
      sender: `${m.from.network_id}:${m.from.id}`,
    });
  }

  search(q: SearchQuery): PageResult<Message> {
    const rooms = new Set(q.scope.room_ids);
    const dms = new Set(q.scope.dm_ids);
    const inScope = (e: Entry): boolean =>
      ((e.room_id !== undefined && rooms.has(e.room_id)) || (e.dm_id !== undefined && dms.has(e.dm_id))) &&
      (q.room_id === undefined || e.room_id === q.room_id) &&
      (q.thread_id === undefined || e.thread_id === q.thread_id) &&
      (q.dm_id === undefined || e.dm_id === q.dm_id) &&
      (q.from === undefined || e.sender === q.from);
    let end = this.entries.length;
    if (q.before !== undefined) {
      const at = this.byId.get(q.before);
      if (at === undefined || !inScope(this.entries[at]!))
        throw new StoreError('unknown_cursor', `unknown cursor ${JSON.stringify(q.before)}`);
      end = at;
    }
    const limit = Math.max(0, Math.floor(q.limit));
    const items: Message[] = [];
    for (let i = end - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (!inScope(e) || !matchesAll(q.terms, e.words)) continue;
      if (items.length === limit) return { items, has_more: true, has_older: true };
      items.push(structuredClone(e.message));
    }
    return { items, has_more: false, has_older: false };
  }
}
