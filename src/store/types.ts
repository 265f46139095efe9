// The store contract: everything the rest of svc knows about durable state. A backend implements
// `Store` (reads, atomic intents), and provides an `EventFeed` (stored events in sequence order,
// whoever wrote them) and `Leases` (who holds an agent's attachment or a pairing's relay worker).
// Nothing outside src/store/ knows which backend runs.
//
// Reads return promises: an in-memory backend resolves at once, a networked one queries. Writes are
// intents that say what happens ("insert this message, creating its thread if absent and counting
// it"); the backend applies each batch atomically against its current state and re-checks whatever
// could race (uniqueness, counts, claims) itself. No write op carries a record computed by the
// caller from an earlier read of mutable fields: fields that depend on stored state are computed by
// the backend, and events that show such state are built by the backend through the op's event
// builder (a pure function called inside the write, with the record as the backend sees it).

import type { Artifact, Message, ServiceEvent, Visibility, WritePolicy } from '../protocol/types.js';
import type { SearchTerms } from '../protocol/search-text.js';

// ---- records ----

export interface RoomRecord {
  id: string;
  name: string;
  members: string[];
  visibility: Visibility;
  write_policy: WritePolicy;
  /** Pairing ids allowed to relay into this room (rooms[].federation.pairings). */
  federation_pairings: string[];
  created_at: string;
  updated_at: string;
  /** Set by a soft removal; removed rooms are absent from listings. */
  removed_at?: string;
}

export interface AgentRecord {
  id: string;
  name?: string;
  actor_uid: string;
  /** Who owns the id: `token:<id>`, `agent:<sha256 of generated token>`, or `anonymous`. */
  credential_key: string;
  created_at: string;
  updated_at: string;
}

export interface MessageRecord {
  message: Message;
  /** Conversation key: `room:<id>`, `thread:<id>` or `dm:<id>`. */
  conv: string;
  /** Id of the `message.created` event, returned again on idempotent retries. */
  event_id: string;
}

export interface ThreadRecord {
  id: string;
  room_id: string;
  parent_message_id?: string;
  message_count: number;
  last_message_at: string;
  created_at: string;
}

export interface DmRecord {
  id: string;
  /** Scoped ids (`<network_id>:<agent_id>`), sorted; one set is one DM. */
  participant_ids: string[];
  message_count: number;
  last_message_at: string;
  created_at: string;
}

/** A pairing's outbox state: kept in the store so any instance can resume the relay. */
export interface PairingState {
  /** Last event sequence number relayed or passed over. */
  seq: number;
  /** The peer has answered a compatibility check at least once. */
  answered: boolean;
}

export interface StoredEvent {
  /** Durable sequence number: the attachment cursor and the SSE event id. */
  seq: number;
  event: ServiceEvent;
  /**
   * The room the event's message is in, as read in the same query as the event, where a
   * networked store's feed reads it so (on the first event of each room in a page). Live delivery
   * takes the audience from it instead of reading the room again: one round trip less per batch.
   */
  room?: RoomRecord;
}

/**
 * An event as a backend stores it: `message` is a null placeholder (kept for key order) when the
 * message is stored by reference (its row, by `message_id`).
 */
export type EventBody = Omit<ServiceEvent, 'message'> & { message?: Message | null };

// ---- write intents ----

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
  /** The records the message was decided on, read with `Store.tentative`: the write is refused (`stale`) if one has changed. */
  basis?: Basis[];
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

/** One atomic write is a list of these, applied in order. */
export type WriteOp =
  | RoomCreateOp
  | RoomDeclareOp
  | RoomRemoveOp
  | RoomMembersOp
  | AgentClaimOp
  | AgentRemoveOp
  | MessageInsertOp
  | EventAppendOp
  | PairingStateOp;

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
  | { op: 'event.append' }
  | { op: 'pairing.state' };

export interface WriteResult {
  /** One per op, in order. */
  outcomes: OpOutcome[];
  /** Every event the batch appended, in sequence order (the feed delivers the same ones). */
  events: StoredEvent[];
}

// ---- reads ----

export interface PageQuery {
  limit: number;
  /** Item id: return items older than it. */
  before?: string;
  /** Item id: return items newer than it. */
  after?: string;
}

export interface PageResult<T> {
  items: T[];
  /** More items exist in the paging direction (older for `before`/default, newer for `after`). */
  has_more: boolean;
  /** Items older than the first returned item exist. */
  has_older: boolean;
}

/**
 * Which active rooms a listing returns (auth/visibility.ts builds it from a viewer): all of them,
 * or public ones plus those with one of `members` (exact member ids) or federated with `pairing`.
 */
export interface RoomFilter {
  all?: boolean;
  members?: string[];
  pairing?: string;
}

/** Which DMs a listing returns: all, or those with one of `participants` (scoped ids). */
export interface DmFilter {
  all?: boolean;
  participants?: string[];
}

export interface ArtifactFilter {
  room_id?: string;
  thread_id?: string;
  dm_id?: string;
}

/**
 * A full-text search over messages. `scope` is what the caller may read (decided by the network
 * layer with the same visibility rules as history); backends never return a message outside it,
 * and apply it before counting the page.
 */
export interface SearchQuery {
  terms: SearchTerms;
  scope: {
    /** Rooms whose messages and thread messages the caller may read. */
    room_ids: readonly string[];
    /** DMs whose messages the caller may read. */
    dm_ids: readonly string[];
  };
  /** Only messages of this room and its threads. */
  room_id?: string;
  thread_id?: string;
  dm_id?: string;
  /** Only messages from this sender, scoped: `<network_id>:<id>`. */
  from?: string;
  limit: number;
  /** A message id from a previous page: only older matches. */
  before?: string;
}

export interface StoreStats {
  backend: string;
  messages: number;
  events: number;
  last_event_seq: number;
  journal_bytes?: number;
  db_bytes?: number;
  checkpoints?: number;
}

/**
 * How an embedded engine runs, for operators (/readyz, svc doctor): sqlite's checkpoints write only
 * changed pages and read untouched pages on demand when its page hook matches the installed sql.js.
 */
export interface EngineReport {
  page_tracking: boolean;
  on_demand_reads: boolean;
  /** Why page tracking is off, when it is. */
  problem?: string;
}

export interface Store {
  /** The backend's name (`memory`, `sqlite`, ...), for logs and stats only: nothing branches on it. */
  readonly backend: string;
  /** Stored events in sequence order, whoever wrote them. */
  readonly feed: EventFeed;
  /** Exclusive, expiring claims shared by every process that uses this store. */
  readonly leases: Leases;
  /** Set when this open migrated an existing store to a newer schema (the migration-risk warning). */
  readonly schemaChange?: SchemaChange;
  /** Set by backends with an embedded engine whose mode an operator should see (sqlite). */
  readonly engine?: EngineReport;

  /**
   * Applies the intents atomically; resolves once durable, after the feed has been handed the
   * batch's events. Throws StoreError (nothing applied).
   */
  write(ops: WriteOp[]): Promise<WriteResult>;
  /** Resolves once everything applied so far is durable (idempotent hits wait on this). */
  sync(): Promise<void>;
  /** Health probe for /readyz: false while the store cannot serve. */
  ping(): Promise<boolean>;
  stats(): Promise<StoreStats>;
  /** Flushes and releases files and connections. */
  close(): Promise<void>;

  getRoom(id: string): Promise<RoomRecord | undefined>;
  /** Active (not removed) rooms in creation order. */
  listRooms(): Promise<RoomRecord[]>;
  /** One page of active rooms matching the filter, in creation order. */
  pageRooms(filter: RoomFilter, q: PageQuery): Promise<PageResult<RoomRecord>>;

  getAgent(id: string): Promise<AgentRecord | undefined>;
  /** Registered agents in registration order. */
  listAgents(): Promise<AgentRecord[]>;
  findAgentsByCredential(credentialKey: string): Promise<AgentRecord[]>;

  getMessage(id: string): Promise<MessageRecord | undefined>;
  /** Messages of one conversation (`room:<id>`, `thread:<id>`, `dm:<id>`), oldest first. */
  listMessages(conv: string, q: PageQuery): Promise<PageResult<Message>>;

  getThread(id: string): Promise<ThreadRecord | undefined>;
  listThreads(roomId: string, q: PageQuery): Promise<PageResult<ThreadRecord>>;

  getDm(id: string): Promise<DmRecord | undefined>;
  /** All DMs in creation order. */
  listDms(): Promise<DmRecord[]>;
  /** One page of DMs matching the filter, in creation order. */
  pageDms(filter: DmFilter, q: PageQuery): Promise<PageResult<DmRecord>>;

  listArtifacts(filter: ArtifactFilter, q: PageQuery): Promise<PageResult<Artifact>>;

  getPairingState(pairingId: string): Promise<PairingState | undefined>;

  /** Messages matching a search, newest first; `has_more` when older matches exist. */
  searchMessages(q: SearchQuery): Promise<PageResult<Message>>;

  /** Stored events with seq > `seq`, oldest first, at most `limit`. */
  eventsAfter(seq: number, limit: number): Promise<StoredEvent[]>;
  /** The highest stored sequence number (0: none). */
  lastEventSeq(): Promise<number>;
  /**
   * The sequence number of a stored event by its id (SSE `Last-Event-ID` past the in-memory
   * replay buffer: another instance's stream, or one from before this process started).
   * Optional: without it such a stream resumes with `stream.replay_gap`.
   */
  eventSeq?(eventId: string): Promise<number | undefined>;
  /**
   * Reads that may answer from what this process read before, saving a networked backend a round
   * trip per message. Optional: a backend whose reads are in-process and current leaves it out.
   */
  readonly tentative?: TentativeReads;
}

// ---- tentative reads ----

/** A record as a decision saw it: its backend's version (null: not stored). */
export interface Basis {
  kind: 'room' | 'agent';
  id: string;
  version: string | null;
}

export interface Tentative<T> {
  record: T | undefined;
  basis: Basis;
}

/**
 * What a decision reads when the write it leads to confirms it: the answer may be out of date by
 * what other processes changed since this one last read the record. A write whose op names the
 * records in its `basis` checks them when it commits and is refused with StoreError `stale`,
 * nothing applied, if one of them has changed; the caller then forgets them and decides again on
 * the store's reads. An outcome that is not such a write (a refusal) is decided again so too.
 */
export interface TentativeReads {
  room(id: string): Promise<Tentative<RoomRecord>>;
  agent(id: string): Promise<Tentative<AgentRecord>>;
  /** The next tentative reads of these records read the store. */
  forget(basis: readonly Basis[]): void;
}

// ---- the event feed ----

export interface FeedSubscription {
  /** Stops delivery; no call of onEvents follows. */
  close(): void;
}

/**
 * Stored events, in sequence order, with no gap and no duplicate, whoever wrote them. A feed is
 * fed by its backend: the in-process one by this process's writes, a networked one by reading new
 * events by cursor when woken (LISTEN/NOTIFY).
 */
export interface EventFeed {
  /**
   * Delivers every stored event with seq > fromSeq: first the stored backlog (read by cursor), then
   * new events as they are stored, each once, in order, in batches. `onError` hears a failure to
   * read the backlog; the subscription is then closed.
   */
  subscribe(fromSeq: number, onEvents: (events: StoredEvent[]) => void, onError?: (err: Error) => void): FeedSubscription;
  /** The highest sequence number delivered to subscribers (or known stored at start). */
  readonly head: number;
}

// ---- leases ----

export interface Lease {
  readonly key: string;
  readonly owner: string;
  /** Extends the lease; false when it was lost (expired and taken, or the backend lost it). */
  renew(): Promise<boolean>;
  /** Gives the lease up; idempotent. */
  release(): Promise<void>;
}

export type LeaseGrant = { ok: true; lease: Lease } | { ok: false; owner: string };

/**
 * Exclusive claims by key (`attach:<agent_id>`, `pairing:<id>`). A lease that is not renewed
 * within `ttlMs` may be taken by another owner, so a crashed process's claims are released; a
 * networked backend may instead tie them to its connection (an advisory lock).
 */
export interface Leases {
  /** Takes `key` for `owner`; fails with the current owner while anyone (the same owner too) holds it. */
  acquire(key: string, owner: string, ttlMs: number): Promise<LeaseGrant>;
}

// ---- errors ----

export type StoreErrorCode =
  | 'unknown_cursor'
  | 'unavailable'
  | 'conflict'
  | 'corrupt'
  | 'not_found'
  | 'room_exists'
  | 'agent_taken'
  | 'thread_room'
  /** A tentative read the write was decided on has changed (TentativeReads). */
  | 'stale';

/** Errors as values with stable codes; the HTTP layer and the network rules map them. */
/** A schema migration an open applied to an existing store. */
export interface SchemaChange {
  from: number;
  to: number;
  /** The svc version that applied it. */
  by: string;
}

/** The one line that refuses a store written by a newer svc (nothing is changed). */
export function newerSchemaMessage(where: string, found: number, supported: number, migratedBy: string | undefined, version: string): string {
  return `${where} has schema version ${found}${migratedBy ? ` (migrated by svc ${migratedBy})` : ''}, newer than svc ${version} supports (${supported}): run that newer svc, or restore a copy taken before the upgrade; nothing was changed`;
}

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export function convKeyOf(target: { kind: string; room_id?: string; thread_id?: string; dm_id?: string }): string {
  if (target.kind === 'thread') return `thread:${target.thread_id}`;
  if (target.kind === 'dm') return `dm:${target.dm_id}`;
  return `room:${target.room_id}`;
}
