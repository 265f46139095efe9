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

function entryOf(m: Message): Entry {
  const t = m.target;
  return {
    message: m,
    words: [...new Set(searchableTexts(m).flatMap(wordsOf))],
    ...(t.kind === 'dm' ? { dm_id: t.dm_id } : { room_id: t.room_id }),
    ...(t.kind === 'thread' ? { thread_id: t.thread_id } : {}),
    sender: `${m.from.network_id}:${m.from.id}`,
  };
}

export class MemorySearch {
  /** Every stored message, oldest first. */
  private readonly entries: Entry[] = [];
  private readonly byId = new Map<string, number>();

  /**
   * Indexes a stored message (the store's own copy: only `replace` changes it). Every message has
   * an entry, so an edit that gives one text keeps its place; one without words never matches.
   */
  add(m: Message): void {
    this.byId.set(m.id, this.entries.length);
    this.entries.push(entryOf(m));
  }

  /** A purged message: its entry is left empty (it never matches), so the others keep their places. */
  remove(id: string): void {
    const at = this.byId.get(id);
    if (at === undefined) return;
    this.entries[at] = { ...this.entries[at]!, words: [] };
    this.byId.delete(id);
  }

  /** An edited or deleted message: its entry now matches its new words (a tombstone, none). */
  replace(m: Message): void {
    const at = this.byId.get(m.id);
    if (at !== undefined) this.entries[at] = entryOf(m);
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
      if (at === undefined || this.entries[at]!.words.length === 0 || !inScope(this.entries[at]!))
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
