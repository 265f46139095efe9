// The search database of the sqlite backend (#43 part 1), kept by the search worker
// (search-worker.ts) in its own sql.js instance and file (`<store>.search`). It is derived data:
// every row comes from the store's messages, so a missing, damaged or foreign file is built again
// from them. `search_index` is a contentless FTS4 table (sql.js has no FTS5) over the folded words
// of each message (protocol/search-text.ts), keyed by the message's seq; `search_scope` holds what
// the visibility and the filters of a search are decided on, and the id a delete or purge names.
// `meta.indexed_seq` is the last seq indexed, in the same transaction as its rows: the worker's
// catch-up starts after it.

import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { indexText } from '../../protocol/search-text.js';
import type { Message } from '../../protocol/types.js';
import type { SearchQuery } from '../types.js';
import { Db } from './db.js';
import { SearchFile } from './search-file.js';
import { mergeStep } from './search-merge.js';

/** Bumped when the file's tables change: a file of another version is built again. */
export const SEARCH_DB_VERSION = 1;

/**
 * `order=DESC` because every search reads newest first, `matchinfo=fts3` because nothing ranks by
 * it (no per-document size rows to write).
 */
const SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS search_index USING fts4(content="", words, order=DESC, matchinfo=fts3);
  CREATE TABLE IF NOT EXISTS search_scope (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    room_id TEXT,
    thread_id TEXT,
    dm_id TEXT,
    sender TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS search_scope_by_id ON search_scope (id);
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** A stored message as the store hands it over: its seq and its JSON body. */
export interface FeedItem {
  seq: number;
  body: string;
}

/** What a search asks the index: candidates newest first, inside the caller's scope. */
export interface CandidateQuery extends Pick<SearchQuery, 'room_id' | 'thread_id' | 'dm_id' | 'from' | 'limit'> {
  /** The FTS4 MATCH expression of the query's terms. */
  match: string;
  room_ids: SearchQuery['scope']['room_ids'];
  dm_ids: SearchQuery['scope']['dm_ids'];
  /** Only seqs below this one (a cursor, or the last candidate of the previous read). */
  below?: number;
}

const SET_META = 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';
const GET_META = 'SELECT value FROM meta WHERE key = ?';
const INSERT_WORDS = 'INSERT INTO search_index (docid, words) VALUES (?, CAST(? AS TEXT))';
const SCOPE_HEAD = 'INSERT OR IGNORE INTO search_scope (seq, id, room_id, thread_id, dm_id, sender)';
const SCOPE_TUPLE = '(?, ?, ?, ?, ?, ?)';

/** The connection settings (again after every export, which reopens the database). */
function configure(raw: Database): void {
  raw.run('PRAGMA journal_mode = MEMORY');
  raw.run('PRAGMA synchronous = OFF');
  raw.run('PRAGMA temp_store = MEMORY');
  raw.run('PRAGMA locking_mode = EXCLUSIVE');
  // Freed pages are zeroed: a rebuilt index leaves nothing of the old one in the image it exports.
  raw.run('PRAGMA secure_delete = ON');
}

export class SearchDb {
  private db: Db;
  /** Changed since the last write of the file. */
  dirty = false;

  private constructor(private readonly file: SearchFile) {
    configure(file.raw);
    file.raw.run(SCHEMA);
    this.db = new Db(file.raw);
  }

  /** The sql.js database (tests read its FTS4 tables). */
  get raw(): Database {
    return this.file.raw;
  }

  /** A new, empty search database of store `epoch`. */
  static empty(SQL: SqlJsStatic, epoch: string): SearchDb {
    const s = new SearchDb(SearchFile.empty(SQL, SCHEMA));
    s.db.run(SET_META, ['version', String(SEARCH_DB_VERSION)]);
    s.db.run(SET_META, ['epoch', epoch]);
    s.db.run(SET_META, ['indexed_seq', '0']);
    s.dirty = true;
    return s;
  }

  /**
   * The database `file` holds, when it is one of this version, of store `epoch`, and indexed no
   * further than `storeSeq` (a store restored from an older copy has not written what it holds);
   * `missing` when there is no file. Anything else (damaged, foreign) is undefined: the caller
   * builds a new one. A file read on demand is not checked page by page (that would read it all
   * into memory): its writes are crash-safe, and a damaged page fails the query that meets it.
   */
  static async open(SQL: SqlJsStatic, file: string, epoch: string, storeSeq: number): Promise<SearchDb | 'missing' | undefined> {
    let opened: SearchFile | undefined;
    try {
      opened = await SearchFile.open(SQL, file);
      if (!opened) return 'missing';
      const s = new SearchDb(opened);
      const ok =
        s.meta('version') === String(SEARCH_DB_VERSION) &&
        s.meta('epoch') === epoch &&
        s.indexedSeq <= storeSeq &&
        (opened.onDemand || opened.raw.exec('PRAGMA quick_check')[0]?.values[0]?.[0] === 'ok');
      if (ok) return s;
      s.close();
      return undefined;
    } catch {
      try {
        opened?.close();
      } catch {
        // a database that never opened
      }
      return undefined;
    }
  }

  private meta(key: string): string | undefined {
    const v = this.db.one(GET_META, [key])?.[0];
    return v === undefined || v === null ? undefined : String(v);
  }

  /** The last seq indexed. */
  get indexedSeq(): number {
    return Number(this.meta('indexed_seq') ?? 0);
  }

  /**
   * Indexes messages in one transaction (one index segment), then moves the merges a step on.
   * `mark`: the items are the next ones of the store in seq order, so the mark moves to the last.
   */
  add(items: readonly FeedItem[], mark: boolean): void {
    if (items.length === 0) return;
    const scope: SqlValue[] = [];
    const words: SqlValue[] = [];
    for (const it of items) {
      const m = JSON.parse(it.body) as Message;
      const text = indexText(m);
      // A message without searchable text gets no rows: it can never match.
      if (text === '') continue;
      pushScope(scope, it.seq, m);
      // As UTF-8 bytes cast to TEXT: sql.js copies bytes natively where it would encode a string in JavaScript.
      words.push(it.seq, Buffer.from(text, 'utf8'));
    }
    this.transaction(() => {
      if (scope.length > 0) this.db.insertRows(SCOPE_HEAD, SCOPE_TUPLE, 6, scope);
      for (let i = 0; i < words.length; i += 2) this.db.run(INSERT_WORDS, [words[i]!, words[i + 1]!]);
      if (mark) this.db.run(SET_META, ['indexed_seq', String(Math.max(this.indexedSeq, items[items.length - 1]!.seq))]);
    });
  }

  /**
   * An edited message's new words, under its seq. The index is contentless, so its old words stay:
   * a search checks every edited candidate against its current words (search.ts).
   */
  edit(item: FeedItem): void {
    this.add([item], false);
  }

  /** Makes deleted or purged messages unfindable: their words stay, but nothing joins them without the scope row. */
  forget(ids: readonly string[]): void {
    this.transaction(() => {
      for (const id of ids) this.db.run('DELETE FROM search_scope WHERE id = ?', [id]);
    });
  }

  /** One bounded merge step (search-merge.ts); whether it did work. */
  merge(): boolean {
    let did = false;
    this.transaction(() => {
      did = mergeStep(this.db);
    });
    return did;
  }

  /** The seqs of up to `q.limit` candidates, newest first. */
  candidates(q: CandidateQuery): number[] {
    const conds = ['(x.room_id IN (SELECT value FROM json_each(?)) OR x.dm_id IN (SELECT value FROM json_each(?)))'];
    const params: SqlValue[] = [q.match, JSON.stringify(q.room_ids), JSON.stringify(q.dm_ids)];
    const filter = (cond: string, v: string | number | undefined) => {
      if (v === undefined) return;
      conds.push(cond);
      params.push(v);
    };
    filter('x.room_id = ?', q.room_id);
    filter('x.thread_id = ?', q.thread_id);
    filter('x.dm_id = ?', q.dm_id);
    filter('x.sender = ?', q.from);
    filter('w.docid < ?', q.below);
    params.push(q.limit);
    const rows = this.db.all(
      'SELECT w.docid FROM search_index w JOIN search_scope x ON x.seq = w.docid ' +
        `WHERE w.search_index MATCH ? AND ${conds.join(' AND ')} ORDER BY w.docid DESC LIMIT ?`,
      params,
    );
    return rows.map((r) => Number(r[0]));
  }

  /** Writes what changed to the file; writes may go on meanwhile (they count as changes for the next). */
  async write(file: string): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    try {
      // An export (no page tracking) reopens the database: statements and settings are made again.
      await this.file.write(file, () => {
        this.db = new Db(this.file.raw);
        configure(this.file.raw);
      });
    } catch (err) {
      this.dirty = true;
      throw err;
    }
  }

  close(): void {
    this.file.close(() => this.db.close());
  }

  private transaction(body: () => void): void {
    this.db.run('BEGIN');
    try {
      body();
      this.db.run('COMMIT');
      this.dirty = true;
    } catch (err) {
      try {
        this.db.run('ROLLBACK');
      } catch {
        // nothing left to roll back
      }
      throw err;
    }
  }
}

/** Appends a message's scope row (seq, id, room, thread, dm, sender) to `out`. */
function pushScope(out: SqlValue[], seq: number, m: Message): void {
  const t = m.target;
  out.push(
    seq,
    m.id,
    t.kind === 'dm' ? null : t.room_id,
    t.kind === 'thread' ? t.thread_id : null,
    t.kind === 'dm' ? t.dm_id : null,
    `${m.from.network_id}:${m.from.id}`,
  );
}
