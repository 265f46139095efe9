// The reactions concern in sqlite: its table, its SQL and how its effects are applied.

import type { SqlValue } from 'sql.js';
import type { SqlitePart } from '../parts.js';
import { isReactionEffect } from './ops.js';
import type { ReactionRecord } from './records.js';

/**
 * The table, as migration 6 of sqlite/schema.ts creates it. The text is that migration's: a
 * migration already applied is never run again, so changing it here changes no database; a new
 * column is a new migration there.
 */
export const REACTIONS_DDL = `
      CREATE TABLE IF NOT EXISTS reactions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL,
        emoji TEXT NOT NULL,
        by_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (message_id, emoji, by_id)
      );
      CREATE INDEX IF NOT EXISTS reactions_by_message ON reactions (message_id, seq);
    `;

export const sqliteReactions: SqlitePart = {
  apply(run, e) {
    if (!isReactionEffect(e)) return false;
    if (e.op === 'reaction.put') {
      const r = e.reaction;
      run('INSERT OR IGNORE INTO reactions (message_id, emoji, by_id, created_at) VALUES (?, ?, ?, ?)', [
        r.message_id,
        r.emoji,
        r.by,
        r.created_at,
      ]);
    } else run('DELETE FROM reactions WHERE message_id = ? AND emoji = ? AND by_id = ?', [e.message_id, e.emoji, e.by]);
    return true;
  },
};

/** The reactions to these messages, oldest first, read with the backend's `all`. */
export function reactionsOf(all: (sql: string, params: SqlValue[]) => SqlValue[][], messageIds: readonly string[]): ReactionRecord[] {
  if (messageIds.length === 0) return [];
  // One statement for any number of ids (statements are cached per SQL text).
  const rows = all(
    'SELECT message_id, emoji, by_id, created_at FROM reactions WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY seq',
    [JSON.stringify(messageIds)],
  );
  return rows.map((r) => ({ message_id: r[0] as string, emoji: r[1] as string, by: r[2] as string, created_at: r[3] as string }));
}
