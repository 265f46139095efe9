// Write intents: the ops of one atomic write and what each did. Re-exported by ./types.js.

import type { Artifact, Message, MessageVersion, Part, RetentionPolicy, ServiceEvent, Visibility, WritePolicy } from '../protocol/types.js';
import type {
  AgentReadState,
  AgentRecord,
  DmRecord,
  MessageRecord,
  PairingState,
  ReadMarker,
  RoomRecord,
  StoredEvent,
  ThreadRecord,
} from './records.js';
import type { PartOp, PartOutcome } from './part.js';

/** The declared fields of a room; the backend adds what depends on stored state. */
export interface RoomSpec {
  id: string;
  /** Absent: the removed room's name when reviving one, else the id. */
  name?: string;
  members: string[];
  visibility: Visibility;
  write_policy: WritePolicy;
  /** Absent: the removed room's pairings when reviving one, else none. */
  federation_pairings?: string[];
  /** Absent: the removed room's retention when reviving one, else none. */
  retention?: RetentionPolicy;
}

/** Builds the event of a room membership change from the room as the backend stored it. */
export type MembersEvent = (room: RoomRecord, added: string[], removed: string[]) => ServiceEvent;

/**
 * Creates a room, or revives a soft-removed one (keeping its created_at, and its name and
 * federation when the spec omits them). Fails with `room_exists` when an active room has the id.
 */
export interface RoomCreateOp {
  op: 'room.create';
  room: RoomSpec;
  at: string;
  event: (room: RoomRecord) => ServiceEvent;
}

/**
 * Makes a room match a declaration (svc.yaml, `svc apply`): creates it when absent; revives a
 * removed one unless `keep_removed`; otherwise changes only the fields given. `members_mode: add`
 * adds the declared members and removes none. Appends `created` on creation or revival and
 * `members` when the member list changed.
 */
export interface RoomDeclareOp {
  op: 'room.declare';
  room: Partial<Omit<RoomSpec, 'id'>> & { id: string };
  members_mode: 'set' | 'add';
  keep_removed: boolean;
  at: string;
  events: { created: (room: RoomRecord) => ServiceEvent; members: MembersEvent };
}

/** Soft-removes an active room (`not_found` otherwise); the event gets the room as it was. */
export interface RoomRemoveOp {
  op: 'room.remove';
  id: string;
  at: string;
  event: (room: RoomRecord) => ServiceEvent;
}

/**
 * Adds and removes members of an active room (`not_found` otherwise), against its current list:
 * members already present are not added twice, absent ones not removed, an id in both is added.
 * Nothing is written (and no event appended) when nothing changes.
 */
export interface RoomMembersOp {
  op: 'room.members.change';
  room_id: string;
  add: string[];
  remove: string[];
  at: string;
  event: MembersEvent;
}

/**
 * Claims an agent id for `agent.credential_key`. Free: stored (created). Held by the same
 * credential: nothing changes (the stored record is returned). Held by another: `agent_taken`.
 */
export interface AgentClaimOp {
  op: 'agent.claim';
  agent: AgentRecord;
}

/**
 * Deletes an agent's registration and takes it out of every room's members (one `members` event
 * per changed room), then appends `removed`. `not_found` when it is neither registered nor a
 * member anywhere.
 */
export interface AgentRemoveOp {
  op: 'agent.remove';
  id: string;
  at: string;
  events: { members: MembersEvent; removed: (agent: AgentRecord | undefined) => ServiceEvent };
}

/**
 * Stores a message with its artifacts and its `message.created` event. For a thread or DM target
 * the conversation is created when absent (appending `created` before the message's event) and
 * otherwise counted: message_count + 1 and last_message_at, against the stored counts. A thread
 * stored under another room fails with `thread_room`. When a message with this id is stored
 * already, nothing of this op is applied and the outcome is `exists` with the stored record.
 */
export interface MessageInsertOp {
  op: 'message.insert';
  record: MessageRecord;
  /**
   * The message id was minted for this insert (not given by a client): no stored message can have
   * it, so the existence check is skipped. The store's unique key still refuses a collision.
   */
  minted?: boolean;
  /** Appended after the message; its `message` is the message. */
  event: ServiceEvent;
  artifacts: Artifact[];
  thread?: { id: string; room_id: string; parent_message_id?: string; created: (t: ThreadRecord) => ServiceEvent };
  dm?: { id: string; participant_ids: string[]; created: (d: DmRecord) => ServiceEvent };
}

/**
 * Edits a stored message (#40 part 1): its parts and mentions become these, `edited_at` is `at` and
 * its version goes up by one; the version it replaces is kept (MessageVersion) and its artifacts
 * are replaced by `artifacts(message)`. Appends `event(message, mentions_added)`, where
 * `mentions_added` are the mentions no earlier version had. Refused with `not_found` when no such
 * message is stored, and `conflict` when it is a tombstone or its version is not `expect_version`.
 */
export interface MessageEditOp {
  op: 'message.edit';
  id: string;
  parts: Part[];
  mentions: string[];
  at: string;
  expect_version?: number;
  artifacts: (message: Message) => Artifact[];
  event: (message: Message, mentions_added: string[]) => ServiceEvent;
}

/**
 * Deletes a stored message (#40 part 2), leaving a tombstone: the record keeps its id, conversation,
 * target, sender and created_at, with no parts or mentions and `deleted_at: at`. Its artifacts,
 * earlier versions and search entry go, and so does what each part keeps about it (`forget`
 * in part.ts); its thread's or DM's message_count goes down by one. Appends
 * `event(tombstone)`. `not_found` when no such message is stored; a tombstone is left as it is
 * (the outcome says `deleted: false` and no event is appended).
 */
export interface MessageDeleteOp {
  op: 'message.delete';
  id: string;
  at: string;
  event: (tombstone: Message) => ServiceEvent;
}

/**
 * Redacts a stored message (#40 part 3): leaves the tombstone a delete leaves (keeping `deleted_at`
 * when it was deleted before), with `redacted_at: at`, and a `message.scrub` effect through which
 * each backend and part rewrites what still holds its content elsewhere (a part's copies of it,
 * sqlite's search index and files). Appends `event(tombstone)`. `not_found` when no such message is
 * stored; a message redacted before is left as it is (`redacted: false`, no event).
 */
export interface MessageRedactOp {
  op: 'message.redact';
  id: string;
  at: string;
  event: (tombstone: Message) => ServiceEvent;
}

/**
 * Removes stored messages for good (#40 part 4, retention): each message's row, the events that
 * hold it, its artifacts, versions and search entry, and what each part keeps about it (`forget`);
 * its thread's or DM's message_count goes down by one unless it was a tombstone (already
 * uncounted). Ids that are not stored are passed over. Appends no event.
 */
export interface MessagePurgeOp {
  op: 'message.purge';
  ids: string[];
}

/** Appends an event that depends on no stored state (presence, wakes, pairing status). */
export interface EventAppendOp {
  op: 'event.append';
  event: ServiceEvent;
}

/** Sets a pairing's outbox state (fields given); `delete` forgets it (a removed pairing). */
export interface PairingStateOp {
  op: 'pairing.state';
  pairing_id: string;
  set?: Partial<PairingState>;
  delete?: boolean;
}

/**
 * Changes an agent's read state (the MCP wait cursor and read markers). Absent: `init` is stored
 * first. With `expect_cursor`, the write is refused (`conflict`) unless the stored cursor is that
 * value, so two instances cannot both consume the same events. `cursor` sets the cursor; each of
 * `read` moves a conversation's marker forward (never back).
 */
export interface AgentReadStateOp {
  op: 'agent.read_state';
  agent_id: string;
  init: AgentReadState;
  expect_cursor?: number;
  cursor?: number;
  read?: Record<string, ReadMarker>;
}

/** One atomic write is a list of these, applied in order. */
export type WriteOp =
  | RoomCreateOp
  | RoomDeclareOp
  | RoomRemoveOp
  | RoomMembersOp
  | AgentClaimOp
  | AgentRemoveOp
  | MessageInsertOp
  | MessageEditOp
  | MessageDeleteOp
  | MessageRedactOp
  | MessagePurgeOp
  | EventAppendOp
  | PairingStateOp
  | AgentReadStateOp
  // The stored concerns' own (concerns.ts).
  | PartOp;

/** What one op did, at the op's index in WriteResult.outcomes. */
export type OpOutcome =
  | { op: 'room.create'; room: RoomRecord; revived: boolean }
  | { op: 'room.declare'; room: RoomRecord | undefined; action: 'created' | 'updated' | 'unchanged' }
  | { op: 'room.remove'; room: RoomRecord }
  | { op: 'room.members.change'; room: RoomRecord; added: string[]; removed: string[] }
  | { op: 'agent.claim'; agent: AgentRecord; created: boolean }
  | { op: 'agent.remove'; agent: AgentRecord | undefined }
  | { op: 'message.insert'; status: 'stored'; record: MessageRecord; thread_created: boolean; dm_created: boolean }
  | { op: 'message.insert'; status: 'exists'; record: MessageRecord }
  | { op: 'message.edit'; record: MessageRecord; previous: MessageVersion; mentions_added: string[] }
  | { op: 'message.delete'; record: MessageRecord; deleted: boolean }
  | { op: 'message.redact'; record: MessageRecord; redacted: boolean }
  | { op: 'message.purge'; purged: string[] }
  | { op: 'event.append' }
  | { op: 'pairing.state' }
  | { op: 'agent.read_state'; state: AgentReadState }
  | PartOutcome;

export interface WriteResult {
  /** One per op, in order. */
  outcomes: OpOutcome[];
  /** Every event the batch appended, in sequence order (the feed delivers the same ones). */
  events: StoredEvent[];
}
