// What each journaled effect does in SQL: one function shared by live writes, start-up replay
// and the checkpoint worker, so the three cannot drift apart. Journal records hold effects
// (intents.ts), never intents: a replay applies what was decided, it does not decide again.
// Nothing here touches the search index: it is the search worker's own database, fed the
// messages once their writes are durable (search-index.ts).

import type { SqlValue } from 'sql.js';
import { StoreError, type EventBody } from '../types.js';
import type { Effect } from '../intents.js';
import { applyKv, type KvEffect } from '../kv/sqlite.js';
import { ownerOf, type AnyPart } from '../part.js';
import { purgeMessages } from './retention.js';
import { markRedaction } from './redaction-marks.js';

/** A journaled op: an effect with its event seq assigned and its event message by reference. */
export type JournalOp =
  | Exclude<Effect, { op: 'event.append' }>
  | { op: 'event.append'; seq: number; event: EventBody; message_id?: string }
  // The expiring key/value table (#27 part 2): journaled, never resolved from intents.
  | KvEffect;

export interface JournalRecord {
  ops: JournalOp[];
}

/** Runs one (cached, prepared) statement with parameters. */
export type Run = (sql: string, params?: SqlValue[]) => void;

/**
 * A JSON body as its UTF-8 bytes, stored with `CAST(? AS TEXT)`: the column holds exactly the
 * same TEXT, but sql.js copies bytes into wasm memory natively where a string would be encoded
 * by a JavaScript loop (twice: once to measure it). JSON.stringify output is well-formed UTF-16,
 * so Buffer.from encodes it exactly as sql.js would.
 */
const utf8 = (json: string | Uint8Array): Uint8Array => (typeof json === 'string' ? Buffer.from(json, 'utf8') : json);

/**
 * A message's artifacts, through the index on this very expression (schema.ts, version 14): the
 * planner uses an expression index only for the same text.
 */
const DELETE_ARTIFACTS = "DELETE FROM artifacts WHERE json_extract(body, '$.message_id') = ?";

/**
 * Applies journal ops inside the caller's transaction (live writes, replay and checkpoints alike).
 * `jsonOf(i)` may give the body JSON of op i when it is a message insert or update (the message) or
 * an event append (the event), already serialized for the journal, as text or UTF-8 bytes, so it is
 * not done twice.
 */
export function applyOps(
  run: Run,
  ops: JournalOp[],
  parts: readonly AnyPart[],
  jsonOf: (index: number) => string | Uint8Array | undefined = () => undefined,
): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    switch (op.op) {
      case 'room.put': {
        run(
          'INSERT INTO rooms (id, removed, body) VALUES (?, ?, ?) ' +
            'ON CONFLICT (id) DO UPDATE SET removed = excluded.removed, body = excluded.body',
          [op.room.id, op.room.removed_at ? 1 : 0, JSON.stringify(op.room)],
        );
        // conv_members follows the member list (a removed room has none) in two statements however
        // long it is: only the rows of members who left go, only those of new members are written.
        const members = op.room.removed_at ? '[]' : JSON.stringify(op.room.members);
        run("DELETE FROM conv_members WHERE kind = 'room' AND id = ? AND member NOT IN (SELECT value FROM json_each(?))", [
          op.room.id,
          members,
        ]);
        if (!op.room.removed_at)
          run("INSERT OR IGNORE INTO conv_members (member, kind, id) SELECT value, 'room', ? FROM json_each(?)", [op.room.id, members]);
        break;
      }
      case 'agent.put':
        run(
          'INSERT INTO agents (id, credential_key, body) VALUES (?, ?, ?) ' +
            'ON CONFLICT (id) DO UPDATE SET credential_key = excluded.credential_key, body = excluded.body',
          [op.agent.id, op.agent.credential_key, JSON.stringify(op.agent)],
        );
        break;
      case 'agent.delete':
        run('DELETE FROM agents WHERE id = ?', [op.id]);
        break;
      case 'message.insert': {
        const r = op.record;
        run('INSERT INTO messages (id, conv, event_id, body) VALUES (?, ?, ?, CAST(? AS TEXT))', [
          r.message.id,
          r.conv,
          r.event_id,
          utf8(jsonOf(i) ?? JSON.stringify(r.message)),
        ]);
        break;
      }
      case 'message.update': {
        // seq, conv and event_id stay: the message keeps its place and its created event.
        const m = op.record.message;
        run('UPDATE messages SET body = CAST(? AS TEXT) WHERE id = ?', [utf8(jsonOf(i) ?? JSON.stringify(m)), m.id]);
        break;
      }
      case 'message.version':
        run('INSERT INTO message_versions (message_id, version, body) VALUES (?, ?, ?)', [
          op.message_id,
          op.version.version,
          JSON.stringify(op.version),
        ]);
        break;
      case 'artifacts.clear':
        run(DELETE_ARTIFACTS, [op.message_id]);
        break;
      case 'message.forget':
        forget(run, op.message_id, parts);
        break;
      case 'message.scrub':
        // Events hold a message by reference (frame.ts): only the parts keep copies. The search
        // database, which cannot drop one message's words, is rebuilt (search-index.ts).
        for (const p of parts) p.sqlite.scrub?.(run, op.message_id, op.message);
        markRedaction(run);
        break;
      case 'message.purge': {
        // A run of purges (a retention batch) goes together, a statement per table (retention.ts).
        const ids = [op.message_id];
        while (ops[i + 1]?.op === 'message.purge') ids.push((ops[++i] as typeof op).message_id);
        purgeMessages(run, ids, parts);
        break;
      }
      case 'thread.put':
        run(
          'INSERT INTO threads (id, room_id, body) VALUES (?, ?, ?) ' +
            'ON CONFLICT (id) DO UPDATE SET room_id = excluded.room_id, body = excluded.body',
          [op.thread.id, op.thread.room_id, JSON.stringify(op.thread)],
        );
        break;
      case 'dm.put':
        run('INSERT INTO dms (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body', [
          op.dm.id,
          JSON.stringify(op.dm),
        ]);
        // A DM's participants never change: their conv_members rows are written when it is new, not
        // on each of its messages. A put without the mark (a copy, an older journal) writes them.
        if (!op.participants_stored)
          run("INSERT OR IGNORE INTO conv_members (member, kind, id) SELECT value, 'dm', ? FROM json_each(?)", [
            op.dm.id,
            JSON.stringify(op.dm.participant_ids),
          ]);
        break;
      case 'artifact.insert': {
        const a = op.artifact;
        const t = a.target;
        run('INSERT INTO artifacts (id, target_kind, room_id, thread_id, dm_id, body) VALUES (?, ?, ?, ?, ?, ?)', [
          a.id,
          t.kind,
          t.kind === 'dm' ? null : (t.room_id ?? null),
          t.kind === 'thread' ? (t.thread_id ?? null) : null,
          t.kind === 'dm' ? (t.dm_id ?? null) : null,
          JSON.stringify(a),
        ]);
        break;
      }
      case 'event.append':
        run('INSERT INTO events (seq, message_id, body) VALUES (?, ?, CAST(? AS TEXT))', [
          op.seq,
          op.message_id ?? null,
          utf8(jsonOf(i) ?? JSON.stringify(op.event)),
        ]);
        break;
      case 'pairing.put':
        run('INSERT INTO pairings (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body', [
          op.pairing_id,
          JSON.stringify(op.state),
        ]);
        break;
      case 'pairing.delete':
        run('DELETE FROM pairings WHERE id = ?', [op.pairing_id]);
        break;
      case 'read_state.put':
        run('INSERT INTO agent_read_state (agent_id, body) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE SET body = excluded.body', [
          op.agent_id,
          JSON.stringify(op.state),
        ]);
        break;
      case 'read_state.delete':
        run('DELETE FROM agent_read_state WHERE agent_id = ?', [op.agent_id]);
        break;
      case 'kv.put':
      case 'kv.delete':
      case 'kv.consume':
      case 'kv.delete_grant':
      case 'kv.sweep':
        applyKv(run, op);
        break;
      default: {
        // A part's effect, applied by the part's own SQL (part.ts). One no part of this store owns
        // is a record of a concern it was not opened with (or a damaged one): nothing is guessed.
        const part = ownerOf(parts, op);
        if (!part)
          throw new StoreError(
            'corrupt',
            `unknown write op ${JSON.stringify((op as { op?: unknown }).op)} (no part of this store applies it)`,
          );
        part.sqlite.apply(run, op);
      }
    }
  }
}

/** Drops what a deleted message leaves: artifacts, versions, each part's records (a purge: retention.ts). */
function forget(run: Run, messageId: string, parts: readonly AnyPart[]): void {
  run(DELETE_ARTIFACTS, [messageId]);
  run('DELETE FROM message_versions WHERE message_id = ?', [messageId]);
  // Every part drops what it keeps about the message.
  for (const p of parts) p.sqlite.forget?.(run, messageId);
}
