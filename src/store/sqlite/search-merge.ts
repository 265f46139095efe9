// Keeping the FTS4 index's segments merged a bounded step at a time, in the search worker's
// database (search-db.ts; the worker runs a step per turn of its thread while it is idle).

import type { Db } from './db.js';

/**
 * One incremental merge per step: at most 32 leaf blocks written, on the lowest level that holds
 * at least 8 segments (then the next such level, while blocks are left). FTS4 merges a level of 16
 * itself, inside a COMMIT; the upkeep keeps level 0 below that, and only level 0's flushes start
 * those merges, so none ever runs.
 */
const MERGE = (t: string) => `INSERT INTO ${t}(${t}) VALUES('merge=32,8')`;
/**
 * Segments bigger than this (in leaf blocks of about 4 KiB; tests lower it) are merged no further.
 * A merge step writes whole doclists, and a common word's doclist grows with its segment: merging
 * segments of 100k+ messages takes tens of milliseconds per step however few blocks it is allowed
 * (bench/tools/fts-merge.ts). Merges stop at segments of about a megabyte, so a search reads
 * about a hundred of them at a million messages.
 */
export const SEGMENT_LIMIT = { blocks: 128 };
/**
 * Where full segments are parked: levels FTS4 reads like any other (a search reads every level
 * 0-1023 of the index) but never merges, as each holds fewer than the 8 segments `merge=32,8`
 * needs. Filled from the top down, so that the oldest segments have the highest level, as FTS4
 * orders them.
 */
const PARK_TOP = 1023;
const PARK_FROM = 512;
const PER_PARK_LEVEL = 7;
const MERGING = (t: string) => `SELECT length(value) FROM ${t}_stat WHERE id = 1`;
const FULL = (t: string) =>
  `SELECT level, idx FROM ${t}_segdir WHERE level < ${PARK_FROM} AND leaves_end_block - start_block + 1 > ? ORDER BY level DESC, idx`;
const PARKED = (t: string) => `SELECT level, count(*) FROM ${t}_segdir WHERE level >= ${PARK_FROM} GROUP BY level ORDER BY level LIMIT 1`;
const PARK = (t: string) => `UPDATE ${t}_segdir SET level = ?, idx = ? WHERE level = ? AND idx = ?`;
const CHANGES = 'SELECT total_changes()';

/**
 * Parks full segments, then runs one bounded merge step; returns whether the merge did work.
 * `table`: the index table's name.
 */
export function mergeStep(db: Db, table = 'search_index'): boolean {
  // Segments of a merge in progress (its input, its appendable output) must stay where they are:
  // FTS4 keeps that merge's place by level in the hint row of search_index_stat.
  if (!Number(db.one(MERGING(table))?.[0] ?? 0)) {
    for (const [level, idx] of db.all(FULL(table), [SEGMENT_LIMIT.blocks])) {
      const [at, n] = db.one(PARKED(table)) ?? [PARK_TOP + 1, PER_PARK_LEVEL];
      const to = Number(n) < PER_PARK_LEVEL ? [Number(at), Number(n)] : [Number(at) - 1, 0];
      db.run(PARK(table), [...to, level!, idx!]);
    }
  }
  // FTS4 tells whether a merge did anything only through the change count.
  const before = Number(db.one(CHANGES)![0]);
  db.run(MERGE(table));
  return Number(db.one(CHANGES)![0]) - before >= 2;
}
