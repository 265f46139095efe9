// Full-text search in the sqlite backend. `search_index` is a contentless FTS4 table (sql.js has
// no FTS5) over the folded words of each message (protocol/search-text.ts), keyed by the message's
// seq; `search_scope` holds what the visibility and the filters of a search are decided on. Both
// rows are written after the message row, by the upkeep (search-upkeep.ts), in batches.
//
// Edits and deletes (#40): the index is contentless, so a message's old words cannot be taken out.
// An edit adds the new words under the same docid (indexEdit, with the edit); a delete drops the
// scope row (forgetSearch). A search then checks each candidate that was edited or deleted against
// its current words (a deleted one never matches) and reads on when that leaves its page short;
// messages never edited take the plain path. The upkeep may also index a message after it was
// edited or deleted (it was pending, with its words as first written): the same check covers that.

import type { Database, SqlValue } from 'sql.js';
import type { Message } from '../../protocol/types.js';
import { ftsMatch, indexText, matchesAll, type SearchTerms } from '../../protocol/search-text.js';
import { StoreError, type PageResult, type SearchQuery } from '../types.js';
import type { SqlRun as Run } from '../part.js';
import type { Db } from './db.js';

/**
 * The tables of schema version 2: `order=DESC` because every search reads newest first,
 * `matchinfo=fts3` because nothing ranks by it (no per-document size rows to write).
 */
export const ftsTable = (name: string): string =>
  `CREATE VIRTUAL TABLE IF NOT EXISTS ${name} USING fts4(content="", words, order=DESC, matchinfo=fts3)`;

export const SEARCH_SCHEMA = `
  ${ftsTable('search_index')};
  CREATE TABLE search_scope (
    seq INTEGER PRIMARY KEY,
    room_id TEXT,
    thread_id TEXT,
    dm_id TEXT,
    sender TEXT NOT NULL
  );
`;

const INSERT_WORDS = 'INSERT INTO search_index (docid, words) VALUES (?, CAST(? AS TEXT))';

/** Appends a message's scope row (seq, room, thread, dm, sender) to `out`; returns `out`. */
function pushScope(out: SqlValue[], seq: SqlValue, m: Message): SqlValue[] {
  const t = m.target;
  out.push(
    seq,
    t.kind === 'dm' ? null : t.room_id,
    t.kind === 'thread' ? t.thread_id : null,
    t.kind === 'dm' ? t.dm_id : null,
    `${m.from.network_id}:${m.from.id}`,
  );
  return out;
}

const scopeRow = (seq: SqlValue, m: Message): SqlValue[] => pushScope([], seq, m);

/**
 * The scope rows' SQL, as `Db.insertRows` takes it, and one row's. OR IGNORE: an edit writes the
 * scope row of a message the upkeep may not have indexed yet (indexEdit).
 */
const SCOPE_HEAD = 'INSERT OR IGNORE INTO search_scope (seq, room_id, thread_id, dm_id, sender)';
const SCOPE_TUPLE = '(?, ?, ?, ?, ?)';
const INSERT_SCOPE = `${SCOPE_HEAD} VALUES ${SCOPE_TUPLE}`;

/**
 * The index rows of many messages, gathered and then written together: the scope rows with one
 * multi-row INSERT per 32 (a statement call through sql.js costs more than the row it inserts),
 * the words a statement each (a multi-row INSERT into the FTS4 table goes through a temporary
 * table and measured slower than single rows).
 */
export class IndexRows {
  private scope: SqlValue[] = [];
  private words: SqlValue[] = [];

  /** Adds one stored message. A message without searchable text gets no rows: it can never match. */
  add(seq: number, m: Message, words: string = indexText(m)): void {
    if (words === '') return;
    pushScope(this.scope, seq, m);
    // As UTF-8 bytes cast to TEXT: sql.js copies bytes natively (see indexSlice).
    this.words.push(seq, Buffer.from(words, 'utf8'));
  }

  /** Writes the rows added since the last write, in the caller's transaction. */
  write(db: Db): void {
    if (this.scope.length === 0) return;
    const [scope, words] = [this.scope, this.words];
    this.scope = [];
    this.words = [];
    db.insertRows(SCOPE_HEAD, SCOPE_TUPLE, 5, scope);
    for (let i = 0; i < words.length; i += 2) db.run(INSERT_WORDS, [words[i]!, words[i + 1]!]);
  }
}

/**
 * Index rows for some of a message's words. The index is contentless, so several rows may carry
 * one docid: their words are found as one document's (every term of a search may be in another
 * slice), as long as no word is in two slices. A message is found once its scope row is written.
 */
export function indexSlice(run: Run, seq: number, words: string): void {
  // The words go in as UTF-8 bytes cast to TEXT: sql.js copies bytes natively where it would
  // encode a string in a JavaScript loop (see apply.ts).
  run(INSERT_WORDS, [seq, Buffer.from(words, 'utf8')]);
}

/** The scope row that makes a message's index rows findable (written with its last slice). */
export function indexScope(run: Run, seq: number, m: Message): void {
  run(INSERT_SCOPE, scopeRow(seq, m));
}

/**
 * Most distinct words of an edit indexed with it: one FTS4 insert of 8,192 words takes about 30 ms
 * of the write's turn (as one slice of the upkeep: search-upkeep.ts SLICE); 131k would hold the
 * loop for seconds. Words past them are not found by search (docs/security.md). Tests lower it.
 */
export const EDIT_WORDS = { max: 8192 };

/** An index text cut to its first `max` distinct words, when it has more. */
function firstWords(text: string, max: number): string {
  // Each word takes at least two characters with its space: shorter texts cannot have more.
  if (text.length < 2 * max) return text;
  const words = [...new Set(text.split(' '))];
  return words.length > max ? words.slice(0, max).join(' ') : text;
}

/**
 * Indexes an edited message's new words under its seq, with its scope row, in the edit's own
 * transaction (live, replayed and checkpointed alike: apply.ts). Edits are rare next to sends, so
 * the index segment this adds per turn is left to the upkeep's merges; a message with no text left
 * adds nothing (its old words are refused by searchPage's check). Its old words stay indexed.
 * Gives the words it indexed (a rebuild under way indexes them too: search-rebuild.ts).
 */
export function indexEdit(run: Run, m: Message): Buffer | undefined {
  const words = firstWords(indexText(m), EDIT_WORDS.max);
  if (words === '') return undefined;
  const bytes = Buffer.from(words, 'utf8');
  run('INSERT INTO search_index (docid, words) SELECT seq, CAST(? AS TEXT) FROM messages WHERE id = ?', [bytes, m.id]);
  run(`${SCOPE_HEAD} SELECT seq, ?, ?, ?, ? FROM messages WHERE id = ?`, [...scopeRow(null, m).slice(1), m.id]);
  return bytes;
}

/** Makes a deleted message unfindable: its index rows stay, but nothing joins them without the scope row. */
export function forgetSearch(run: Run, messageId: string): void {
  run('DELETE FROM search_scope WHERE seq = (SELECT seq FROM messages WHERE id = ?)', [messageId]);
}

/**
 * Whether a candidate the index found is found by `t`: a message never edited is (the index holds
 * only its words), an edited one only by its current words, a deleted one never.
 */
function current(m: Message, t: SearchTerms): boolean {
  if (m.deleted_at !== undefined) return false;
  return m.edited_at === undefined || matchesAll(t, indexText(m).split(' '));
}

/** Indexes every message already stored (the migration to schema version 2). */
export function indexExisting(db: Database): void {
  const read = db.prepare('SELECT seq, body FROM messages ORDER BY seq');
  const scope = db.prepare(INSERT_SCOPE);
  const words = db.prepare(INSERT_WORDS);
  try {
    while (read.step()) {
      const [seq, body] = read.get();
      const m = JSON.parse(body as string) as Message;
      const text = indexText(m);
      if (text === '') continue;
      scope.run(scopeRow(seq!, m));
      words.run([seq!, text]);
    }
  } finally {
    read.free();
    scope.free();
    words.free();
  }
}

/** Reads rows of one statement (the store's cached statements). */
export type All = (sql: string, params: SqlValue[]) => SqlValue[][];

/**
 * One page of a search. Visibility and filters are conditions of the same query that walks the
 * index newest first, so LIMIT counts only messages the caller may read.
 */
export function searchPage(all: All, q: SearchQuery): PageResult<Message> {
  const conds = ['(x.room_id IN (SELECT value FROM json_each(?)) OR x.dm_id IN (SELECT value FROM json_each(?)))'];
  const scope: SqlValue[] = [JSON.stringify(q.scope.room_ids), JSON.stringify(q.scope.dm_ids)];
  const params: SqlValue[] = [];
  const filter = (cond: string, v: string | undefined) => {
    if (v === undefined) return;
    conds.push(cond);
    params.push(v);
  };
  filter('x.room_id = ?', q.room_id);
  filter('x.thread_id = ?', q.thread_id);
  filter('x.dm_id = ?', q.dm_id);
  filter('x.sender = ?', q.from);
  const where = conds.join(' AND ');
  let below = '';
  const cursor: SqlValue[] = [];
  if (q.before !== undefined) {
    // The cursor must be a message this caller may find with these filters, as a history cursor
    // must be in its list: anything else is unknown, which also says nothing about hidden ones.
    const r = all(`SELECT x.seq FROM messages m JOIN search_scope x ON x.seq = m.seq WHERE m.id = ? AND ${where}`, [
      q.before,
      ...scope,
      ...params,
    ]);
    if (r.length === 0) throw new StoreError('unknown_cursor', `unknown cursor ${JSON.stringify(q.before)}`);
    below = ' AND w.docid < ?';
    cursor.push(r[0]![0]!);
  }
  const limit = Math.max(0, Math.min(Math.floor(q.limit), 1000));
  const items: Message[] = [];
  // limit + 1 rows found, unless candidates edited or deleted away leave the page short: then the
  // rows below the last one read, twice as many each time (each query walks the terms' postings).
  for (let want = limit + 1; ; want = Math.min(2 * want, READ_ON_MAX)) {
    const rows = all(
      'SELECT w.docid, m.body FROM search_index w JOIN search_scope x ON x.seq = w.docid JOIN messages m ON m.seq = w.docid ' +
        `WHERE w.search_index MATCH ?${below} AND ${where} ORDER BY w.docid DESC LIMIT ?`,
      [ftsMatch(q.terms), ...cursor, ...scope, ...params, want],
    );
    for (const r of rows) {
      const m = JSON.parse(r[1] as string) as Message;
      if (current(m, q.terms)) items.push(m);
    }
    if (rows.length < want || items.length > limit) break;
    below = ' AND w.docid < ?';
    cursor.splice(0, 1, rows[rows.length - 1]![0]!);
  }
  const more = items.length > limit;
  return { items: items.slice(0, limit), has_more: more, has_older: more };
}

/** Most rows one query of a search reads when it reads on past edited or deleted candidates. */
const READ_ON_MAX = 1024;
