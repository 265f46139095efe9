// Rebuilding the search index after a redaction (#40 part 3). The index is a contentless FTS4
// table (search.ts): one message's words cannot be taken out of it, and its segments keep the
// words of every message ever indexed, edited and deleted ones included. A redaction therefore
// starts a second index, `search_next`, filled from the messages as they are now (a tombstone has
// no words, an edited message only its current ones) a batch per upkeep step, beside the live
// indexing that keeps `search_index` whole for searches. Once it has caught up it takes the
// index's place in one step; the old index's blocks are then deleted a slice per step (with
// `secure_delete` on, sqlite zeroes what it frees), and the store runs a checkpoint that writes
// the zeroed pages to `svc.db` and retires the journal generations holding the message as sent.
//
// The state is in the database, so a restart goes on where it stopped: meta `search_rebuild_seq`
// is the last message seq the new index holds (absent: no rebuild), `search_old` the index being
// retired, meta `scrub_checkpoint` a checkpoint still owed (Checkpointer, SqliteStore.scrubbed).

import { indexText } from '../../protocol/search-text.js';
import type { Message } from '../../protocol/types.js';
import type { SqlRun as Run } from '../part.js';
import type { Db } from './db.js';
import { ftsTable } from './search.js';
import { mergeStep } from './search-merge.js';

export const REBUILD_KEY = 'search_rebuild_seq';
export const SCRUB_CHECKPOINT_KEY = 'scrub_checkpoint';

/** The index a rebuild fills, made like search_index (search.ts SEARCH_SCHEMA). */
export const NEXT_SCHEMA = ftsTable('search_next');

const SET_META = 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';
const READ_MARK = `SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${REBUILD_KEY}'`;
const READ_INDEXED = "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'search_indexed_seq'";
const NEXT_ROWS = 'SELECT seq, body FROM messages WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?';
const INSERT_NEXT = 'INSERT INTO search_next (docid, words) VALUES (?, CAST(? AS TEXT))';
const OLD_EXISTS = "SELECT 1 FROM sqlite_master WHERE name = 'search_old'";
/** Blocks of the old index deleted per step (about 4 KiB each: a quarter megabyte zeroed). */
const RETIRE_BLOCKS = 64;
const RETIRE = `DELETE FROM search_old_segments WHERE blockid IN (SELECT blockid FROM search_old_segments LIMIT ${RETIRE_BLOCKS})`;

/**
 * Starts a rebuild, in a redaction's own transaction (live, replayed and checkpointed alike, so
 * every copy of the database agrees). What a rebuild under way indexed may hold the redacted
 * message's words: it starts again from an empty `search_next`.
 */
export function startRebuild(run: Run): void {
  run('DROP TABLE IF EXISTS search_next');
  run(NEXT_SCHEMA);
  run(SET_META, [REBUILD_KEY, '0']);
  run(SET_META, [SCRUB_CHECKPOINT_KEY, '1']);
}

/**
 * Indexes an edit's new words into the index being rebuilt too, when the rebuild has passed the
 * message (it reads the others as they are when it gets to them).
 */
export function rebuildEdit(run: Run, id: string, words: Buffer): void {
  run(`INSERT INTO search_next (docid, words) SELECT seq, CAST(? AS TEXT) FROM messages WHERE id = ? AND seq <= (${READ_MARK})`, [
    words,
    id,
  ]);
}

/** Most messages one step reads; the words of one message's slice, as the upkeep's (search-upkeep.ts). */
export const REBUILD_LIMIT = { messages: 128, words: 8192 };

/** What is left of a rebuild, as the upkeep's steps see it. */
export type RebuildState = 'idle' | 'indexing' | 'retiring';

export class SearchRebuild {
  /** A message of very many words, indexed a slice per step (its seq is marked when it is whole). */
  private big: { seq: number; words: string[]; at: number } | undefined;

  constructor(private readonly db: Db) {}

  /** Where the rebuild stands, read from the database. */
  state(): RebuildState {
    if (this.db.one(READ_MARK) !== undefined) return 'indexing';
    return this.db.one(OLD_EXISTS) ? 'retiring' : 'idle';
  }

  /** Forgets a message being sliced (the rebuild restarted, or the store stops). */
  reset(): void {
    this.big = undefined;
  }

  /**
   * One step of the rebuild in the caller's transaction, until `deadline`; returns what is left
   * after it ('idle' when the old index is gone: the scrub checkpoint is due).
   */
  step(deadline: number): RebuildState {
    const state = this.state();
    if (state === 'retiring') return this.retire();
    if (state === 'idle') return 'idle';
    const db = this.db;
    const upto = Number(db.one(READ_INDEXED)?.[0] ?? 0);
    let mark = Number(db.one(READ_MARK)![0]);
    if (this.big) {
      const b = this.big;
      const part = b.words.slice(b.at, b.at + REBUILD_LIMIT.words);
      b.at += part.length;
      db.run(INSERT_NEXT, [b.seq, Buffer.from(part.join(' '), 'utf8')]);
      if (b.at < b.words.length) return 'indexing';
      this.big = undefined;
      mark = b.seq;
    } else {
      for (const [seq, body] of db.all(NEXT_ROWS, [mark, upto, REBUILD_LIMIT.messages])) {
        const text = indexText(JSON.parse(body as string) as Message);
        const words = text.length >= 2 * REBUILD_LIMIT.words ? [...new Set(text.split(' '))] : undefined;
        if (words && words.length > REBUILD_LIMIT.words) {
          this.big = { seq: seq as number, words, at: 0 };
          break;
        }
        if (text !== '') db.run(INSERT_NEXT, [seq!, Buffer.from(text, 'utf8')]);
        mark = seq as number;
        if (performance.now() > deadline) break;
      }
    }
    db.run(SET_META, [REBUILD_KEY, String(mark)]);
    mergeStep(db, 'search_next');
    if (this.big || mark < upto) return 'indexing';
    // Caught up with the live index (messages after `upto` are pending for whichever index holds
    // the name): the new index takes its place, the old one is retired.
    db.run('DROP TABLE IF EXISTS search_old');
    db.run('ALTER TABLE search_index RENAME TO search_old');
    db.run('ALTER TABLE search_next RENAME TO search_index');
    db.run(NEXT_SCHEMA);
    db.run(`DELETE FROM meta WHERE key = '${REBUILD_KEY}'`);
    return 'retiring';
  }

  /** Deletes a slice of the old index's blocks; drops it when none are left. */
  private retire(): RebuildState {
    const before = Number(this.db.one('SELECT total_changes()')![0]);
    this.db.run(RETIRE);
    if (Number(this.db.one('SELECT total_changes()')![0]) > before) return 'retiring';
    this.db.run('DROP TABLE search_old');
    return 'idle';
  }
}
