// The reactions concern in sqlite: its table, its SQL and how its effects are applied.

import type { SqlAll, SqliteAdapter } from '../part.js';
import type { ReactionState } from './decide.js';
import type { ReactionEffect } from './ops.js';
import type { ReactionReads, ReactionRecord } from './records.js';

/** The table, as migration 6 of sqlite/schema.ts created it before the part kept its own versions. */
const REACTIONS_DDL = `
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

/** The reactions to these messages, oldest first. */
function reactionsOf(all: SqlAll, messageIds: readonly string[]): ReactionRecord[] {
  if (messageIds.length === 0) return [];
  // One statement for any number of ids (statements are cached per SQL text).
  const rows = all(
    'SELECT message_id, emoji, by_id, created_at FROM reactions WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY seq',
    [JSON.stringify(messageIds)],
  );
  return rows.map((r) => ({ message_id: r[0] as string, emoji: r[1] as string, by: r[2] as string, created_at: r[3] as string }));
}

export const sqliteReactions: SqliteAdapter<ReactionEffect, ReactionState, ReactionReads> = {
  migrations: [REACTIONS_DDL],
  apply(run, e) {
    if (e.op === 'reaction.put') {
      const r = e.reaction;
      run('INSERT OR IGNORE INTO reactions (message_id, emoji, by_id, created_at) VALUES (?, ?, ?, ?)', [
        r.message_id,
        r.emoji,
        r.by,
        r.created_at,
      ]);
    } else run('DELETE FROM reactions WHERE message_id = ? AND emoji = ? AND by_id = ?', [e.message_id, e.emoji, e.by]);
  },
  // A deleted message takes no reactions (intents.ts), and keeps none.
  forget(run, messageId) {
    run('DELETE FROM reactions WHERE message_id = ?', [messageId]);
  },
  state: (all) => ({ reactions: (id) => reactionsOf(all, [id]) }),
  reads: (all) => ({ list: async (ids) => reactionsOf(all, ids) }),
};
