// The reactions concern in Postgres: its table, the rows a batch reads and locks, its reads and
// the statement pieces of its effects.

import type pg from 'pg';
import type { PgRows, PgTables, PostgresAdapter } from '../part.js';
import type { ReactionState } from './decide.js';
import { isReactionEffect, type ReactionChangeOp, type ReactionEffect } from './ops.js';
import type { ReactionReads, ReactionRecord } from './records.js';

/** The table's name in the store's schema. */
const REACTIONS_TABLE = 'reactions';

/** The table (`S` is the schema), as migration 3 of postgres/schema.ts created it before the part kept its own versions. */
const REACTIONS_DDL = `
      CREATE TABLE IF NOT EXISTS S.reactions (
        seq bigserial PRIMARY KEY,
        message_id text NOT NULL,
        emoji text NOT NULL,
        by_id text NOT NULL,
        created_at text NOT NULL,
        UNIQUE (message_id, emoji, by_id)
      );
      CREATE INDEX IF NOT EXISTS reactions_by_message ON S.reactions (message_id, seq);
    `;

const recordOf = (r: Record<string, unknown>): ReactionRecord => ({
  message_id: String(r.message_id),
  emoji: String(r.emoji),
  by: String(r.by_id),
  created_at: String(r.created_at),
});

export const postgresReactions: PostgresAdapter<ReactionChangeOp, ReactionEffect, ReactionState, ReactionReads> = {
  migrations: [REACTIONS_DDL],
  ctes(mine, sql) {
    const table = sql.table(REACTIONS_TABLE);
    // The CTEs of a statement run on one snapshot and cannot see each other's rows, so a batch
    // that puts and deletes the same reaction (the resolver allows it: add then remove) is first
    // reduced to each key's last effect, in the order of those effects.
    const last = new Map<string, { e: ReactionEffect; deleted: boolean }>();
    for (const e of mine) {
      if (!isReactionEffect(e)) continue;
      const k = e.op === 'reaction.put' ? keyOf(e.reaction) : keyOf(e);
      const deleted = last.get(k)?.deleted === true || e.op === 'reaction.delete';
      last.delete(k);
      last.set(k, { e, deleted });
    }
    const fresh: string[] = [];
    const again: string[] = [];
    const out: string[] = [];
    for (const { e, deleted } of last.values()) {
      if (e.op === 'reaction.delete')
        out.push(
          `DELETE FROM ${table} WHERE message_id = ${sql.param(e.message_id)} AND emoji = ${sql.param(e.emoji)} AND by_id = ${sql.param(e.by)}`,
        );
      else (deleted ? again : fresh).push(sql.row([e.reaction.message_id, e.reaction.emoji, e.reaction.by, e.reaction.created_at]));
    }
    const insert = `INSERT INTO ${table} (message_id, emoji, by_id, created_at) VALUES `;
    if (fresh.length > 0) out.push(`${insert}${fresh.join(', ')} ON CONFLICT DO NOTHING`);
    // Removed, then added again in the batch: the stored row takes the new time and goes last, as
    // a delete and an insert would leave it.
    if (again.length > 0)
      out.push(
        `${insert}${again.join(', ')} ON CONFLICT (message_id, emoji, by_id) DO UPDATE SET created_at = excluded.created_at, seq = excluded.seq`,
      );
    return out;
  },
  // A deleted message keeps no reactions.
  forget: (ids, sql) => [`DELETE FROM ${sql.table(REACTIONS_TABLE)} WHERE message_id = ANY(${ids})`],
  async prefetch(c, T, mine) {
    const byMessage = await prefetchReactions(c, T, [...new Set(mine.map((op) => op.reaction.message_id))].sort());
    return { reactions: (id) => byMessage.get(id) ?? [] };
  },
  reads: (rows, T) => ({ list: (ids) => listReactions(rows, T.table(REACTIONS_TABLE), ids) }),
};

const keyOf = (r: { message_id: string; emoji: string; by: string }) => `${r.message_id}\u0000${r.emoji}\u0000${r.by}`;

/** The reactions to these messages, oldest first. */
async function listReactions(rows: PgRows, table: string, messageIds: readonly string[]): Promise<ReactionRecord[]> {
  if (messageIds.length === 0) return [];
  const found = await rows(`SELECT message_id, emoji, by_id, created_at FROM ${table} WHERE message_id = ANY($1) ORDER BY seq`, [
    [...messageIds],
  ]);
  return found.map(recordOf);
}

/**
 * What a batch of reaction.change ops decides on: the reactions of the messages they name (sorted
 * ids), by message. The message row is the lock that serializes reactions to it (the distinct-emoji
 * limit depends on rows that may not exist yet).
 */
async function prefetchReactions(c: pg.ClientBase, T: PgTables, messageIds: readonly string[]): Promise<Map<string, ReactionRecord[]>> {
  const out = new Map<string, ReactionRecord[]>();
  if (messageIds.length === 0) return out;
  await c.query(`SELECT id FROM ${T.messages} WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, [messageIds]);
  const rows: PgRows = async (text, values) => (await c.query(text, values)).rows;
  for (const rec of await listReactions(rows, T.table(REACTIONS_TABLE), messageIds)) {
    const l = out.get(rec.message_id) ?? [];
    l.push(rec);
    out.set(rec.message_id, l);
  }
  return out;
}
