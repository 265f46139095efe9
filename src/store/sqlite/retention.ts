// Retention in the sqlite backend (#40 part 4): which of a conversation's messages have expired
// (Store.expiredMessages), what a purge does in SQL (apply.ts `message.purge`), and the event seq
// and count a purge must not take back.
//
// A purge deletes events, so the newest seq stored may no longer be the last one given, and the
// number of events is no longer the last seq: `meta` keeps both (the last seq, raised before events
// go; the number purged), in the purge's own transaction, so a replay of the journal keeps them the
// same way.

import type { SqlValue } from 'sql.js';
import type { ExpiredQuery } from '../types.js';
import type { AnyPart, SqlRun as Run } from '../part.js';
import type { Db } from './db.js';

/** The ids of a purge, bound as one JSON array. */
const IDS = '(SELECT value FROM json_each(?))';
const LAST_SEQ_KEY = 'events_last_seq';
const PURGED_KEY = 'events_purged';
const metaInt = (key: string) => `coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${key}'), 0)`;
/** Sets meta row `key` to the value of the SQL expression `expr`. */
const setMeta = (key: string, expr: string) =>
  `INSERT INTO meta (key, value) VALUES ('${key}', CAST(${expr} AS TEXT)) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
const RAISE_LAST_SEQ = setMeta(LAST_SEQ_KEY, `max((SELECT coalesce(max(seq), 0) FROM events), ${metaInt(LAST_SEQ_KEY)})`);
const PURGE_EVENTS = `DELETE FROM events WHERE message_id IN ${IDS}`;
// Run right after PURGE_EVENTS: changes() is the number of rows that statement deleted, so the
// events are not looked up a second time to be counted (at 1M messages the count cost as much as
// the delete: bench/tools/purge-cost.ts).
const COUNT_PURGED = setMeta(PURGED_KEY, `${metaInt(PURGED_KEY)} + changes()`);
/**
 * Counts the events the statement just run deleted as purged (so the store's event count stays
 * true), for a part that drops events of its own (an event its newer one replaced: part.ts,
 * `replaces`). Never the newest event, so the last seq stays.
 */
export const COUNT_DROPPED_EVENTS = COUNT_PURGED;

const PURGE = [
  // The same expression as artifacts_by_message (schema.ts, version 14), so the index is used.
  `DELETE FROM artifacts WHERE json_extract(body, '$.message_id') IN ${IDS}`,
  `DELETE FROM message_versions WHERE message_id IN ${IDS}`,
];

/**
 * Removes messages for good (`message.purge` effects, apply.ts): what a delete drops (artifacts,
 * versions, each part's records; the search worker forgets them too: search-index.ts), the events that hold them and their rows, a
 * statement per table for the whole run (a retention batch is up to 100 messages; a statement
 * through sql.js costs more than a row). No seq is given again: the last one is kept in meta first.
 */
export function purgeMessages(run: Run, ids: string[], parts: readonly AnyPart[]): void {
  const list = JSON.stringify(ids);
  run(RAISE_LAST_SEQ);
  run(PURGE_EVENTS, [list]);
  run(COUNT_PURGED);
  for (const sql of PURGE) run(sql, [list]);
  // Every part drops what it keeps about each message.
  for (const id of ids) for (const p of parts) p.sqlite.forget?.(run, id);
  run(`DELETE FROM messages WHERE id IN ${IDS}`, [list]);
}

/**
 * Records, in a copied store (copy.ts), the source's last seq and how many of the seqs up to it
 * have no event (purged in the source), as the source's purges would have.
 */
export function copiedSeqs(run: Run, lastSeq: number, events: number): void {
  run(setMeta(LAST_SEQ_KEY, '?'), [lastSeq]);
  run(setMeta(PURGED_KEY, '?'), [Math.max(0, lastSeq - events)]);
}

/** The last event seq given: the newest stored, or a newer one whose event a purge took. */
export function lastEventSeq(db: Db): number {
  return Number(db.one(`SELECT max((SELECT coalesce(max(seq), 0) FROM events), ${metaInt(LAST_SEQ_KEY)})`)![0]);
}

/** How many events purges removed (the events stored are the last seq less these). */
export function purgedEvents(db: Db): number {
  return Number(db.one(`SELECT ${metaInt(PURGED_KEY)}`)![0]);
}

/**
 * The ids of a conversation's expired messages, oldest first (filters.ts expiredOf is the
 * reference): those up to `cut` (the newest over its `keep`: keep-cuts.ts), then those created
 * before `before` up to the first that is not. Reads through messages_by_conv (conv, seq), bodies
 * only of the rows it looks at, a few first (one, when nothing has expired: the common case of a
 * run every minute), then more.
 */
export function expiredMessages(db: Db, q: ExpiredQuery, cut: number): string[] {
  const limit = Math.max(0, Math.floor(q.limit));
  if (limit === 0) return [];
  const out: string[] = [];
  let after = 0;
  if (cut > 0) {
    for (const [seq, id] of db.all('SELECT seq, id FROM messages WHERE conv = ? AND seq <= ? ORDER BY seq LIMIT ?', [q.conv, cut, limit])) {
      out.push(id as string);
      after = seq as number;
    }
  }
  if (q.before === undefined) return out;
  for (let want = 1; out.length < limit; want = Math.min(want * 8, 512)) {
    const rows: SqlValue[][] = db.all(
      "SELECT seq, id, json_extract(body, '$.created_at') FROM messages WHERE conv = ? AND seq > ? ORDER BY seq LIMIT ?",
      [q.conv, after, Math.min(want, limit - out.length)],
    );
    for (const [seq, id, created] of rows) {
      if (!(typeof created === 'string' && created < q.before)) return out;
      out.push(id as string);
      after = seq as number;
    }
    if (rows.length < want) break;
  }
  return out;
}
