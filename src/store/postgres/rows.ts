// Rows to records and back. Records are rebuilt in the key order the other backends produce, and
// optional fields stay absent (not null) when the row holds NULL, so every backend returns the same
// values.

import type { Artifact, Message, RetentionPolicy, ServiceEvent } from '../../protocol/types.js';
import { indexText } from '../../protocol/search-text.js';
import type { AgentRecord, DmRecord, MessageRecord, PairingState, RoomRecord, StoredEvent, ThreadRecord } from '../types.js';

export const ROOM_COLS = 'id, name, members, visibility, write_policy, federation_pairings, created_at, updated_at, removed_at, retention';
export const AGENT_COLS = 'id, name, actor_uid, credential_key, created_at, updated_at';
export const THREAD_COLS = 'id, room_id, parent_message_id, message_count, last_message_at, created_at';
export const DM_COLS = 'id, participant_ids, message_count, last_message_at, created_at';

type Row = Record<string, unknown>;
const str = (v: unknown): string => v as string;

/** SQL for one row's columns (`a, b` of a COLS list) as a JSON object with the same keys, read through `alias`. */
export const jsonColumns = (cols: string, alias = ''): string =>
  `json_build_object(${cols
    .split(', ')
    .map((c) => `'${c}', ${alias}${c}`)
    .join(', ')})`;

export function roomOf(r: Row): RoomRecord {
  const room: RoomRecord = {
    id: str(r.id),
    name: str(r.name),
    members: r.members as string[],
    visibility: r.visibility as RoomRecord['visibility'],
    write_policy: r.write_policy as RoomRecord['write_policy'],
    federation_pairings: r.federation_pairings as string[],
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
  };
  if (r.retention !== null && r.retention !== undefined) {
    // jsonb keeps its own key order: rebuilt in the policy's.
    const p = r.retention as RetentionPolicy;
    const out: RetentionPolicy = {};
    if (p.max_age !== undefined) out.max_age = p.max_age;
    if (p.max_messages !== undefined) out.max_messages = p.max_messages;
    room.retention = out;
  }
  if (r.removed_at !== null && r.removed_at !== undefined) room.removed_at = str(r.removed_at);
  return room;
}

export function roomParams(room: RoomRecord): unknown[] {
  return [
    room.id,
    room.name,
    room.members,
    room.visibility,
    room.write_policy,
    room.federation_pairings,
    room.created_at,
    room.updated_at,
    room.removed_at ?? null,
    room.retention ? JSON.stringify(room.retention) : null,
  ];
}

export function agentOf(r: Row): AgentRecord {
  const a: AgentRecord = {
    id: str(r.id),
    actor_uid: str(r.actor_uid),
    credential_key: str(r.credential_key),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
  };
  if (r.name !== null && r.name !== undefined)
    return {
      id: a.id,
      name: str(r.name),
      actor_uid: a.actor_uid,
      credential_key: a.credential_key,
      created_at: a.created_at,
      updated_at: a.updated_at,
    };
  return a;
}

export function agentParams(a: AgentRecord): unknown[] {
  return [a.id, a.name ?? null, a.actor_uid, a.credential_key, a.created_at, a.updated_at];
}

export function threadOf(r: Row): ThreadRecord {
  const t: ThreadRecord = {
    id: str(r.id),
    room_id: str(r.room_id),
    message_count: Number(r.message_count),
    last_message_at: str(r.last_message_at),
    created_at: str(r.created_at),
  };
  if (r.parent_message_id !== null && r.parent_message_id !== undefined) {
    return {
      id: t.id,
      room_id: t.room_id,
      parent_message_id: str(r.parent_message_id),
      message_count: t.message_count,
      last_message_at: t.last_message_at,
      created_at: t.created_at,
    };
  }
  return t;
}

export function threadParams(t: ThreadRecord): unknown[] {
  return [t.id, t.room_id, t.parent_message_id ?? null, t.message_count, t.last_message_at, t.created_at];
}

export function dmOf(r: Row): DmRecord {
  return {
    id: str(r.id),
    participant_ids: r.participant_ids as string[],
    message_count: Number(r.message_count),
    last_message_at: str(r.last_message_at),
    created_at: str(r.created_at),
  };
}

export function dmParams(d: DmRecord): unknown[] {
  return [d.id, d.participant_ids, d.message_count, d.last_message_at, d.created_at];
}

export function messageRecordOf(r: Row): MessageRecord {
  return { message: JSON.parse(str(r.body)) as Message, conv: str(r.conv), event_id: str(r.event_id) };
}

export const MESSAGE_COLS = 'id, conv, event_id, room_id, thread_id, dm_id, from_id, created_at, body, words, sender';

/**
 * Characters of distinct words indexed per message. PostgreSQL refuses a tsvector over 1 MiB
 * (lexemes plus positions: a 1 MiB text of ~131k distinct words makes 1.5 MB), which refused the
 * whole send; words past this budget (~60k words) are stored but not found by search.
 */
export const INDEXED_WORD_CHARS = 400_000;

/** A message's distinct searchable words, the first INDEXED_WORD_CHARS characters of them. */
export function indexedWords(m: MessageRecord['message']): string {
  let out = '';
  for (const w of new Set(indexText(m).split(' '))) {
    if (w === '') continue;
    if (out.length + w.length + 1 > INDEXED_WORD_CHARS) break;
    out = out === '' ? w : `${out} ${w}`;
  }
  return out;
}

/** The message's columns (MESSAGE_COLS); `words` are its distinct searchable words. */
export function messageParams(rec: MessageRecord, body: string): unknown[] {
  const m = rec.message;
  const t = m.target;
  const words = indexedWords(m);
  return [
    m.id,
    rec.conv,
    rec.event_id,
    t.kind === 'dm' ? null : (t.room_id ?? null),
    t.kind === 'thread' ? (t.thread_id ?? null) : null,
    t.kind === 'dm' ? (t.dm_id ?? null) : null,
    m.from.id,
    m.created_at,
    body,
    words,
    `${m.from.network_id}:${m.from.id}`,
  ];
}

/** The artifact's columns: id, target_kind, room_id, thread_id, dm_id, body. */
export function artifactParams(a: Artifact): unknown[] {
  const t = a.target;
  return [
    a.id,
    t.kind,
    t.kind === 'dm' ? null : (t.room_id ?? null),
    t.kind === 'thread' ? (t.thread_id ?? null) : null,
    t.kind === 'dm' ? (t.dm_id ?? null) : null,
    JSON.stringify(a),
  ];
}

export function pairingOf(r: Row): PairingState {
  return { seq: Number(r.seq), answered: r.answered === true };
}

/** A stored event row (seq, message_id, body, and the joined message body `mbody`). */
export function eventOf(r: Row): StoredEvent {
  const event = JSON.parse(str(r.body)) as ServiceEvent & { message?: Message | null };
  if (r.message_id !== null && r.message_id !== undefined) {
    if (r.mbody !== null && r.mbody !== undefined) event.message = JSON.parse(str(r.mbody)) as Message;
    else delete event.message;
  }
  return { seq: Number(r.seq), event: event as ServiceEvent };
}
