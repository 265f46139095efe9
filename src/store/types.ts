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

import type { Artifact, Message, MessageVersion } from '../protocol/types.js';
import type { SearchTerms } from '../protocol/search-text.js';

export * from './records.js';
export * from './write-ops.js';
import type {
  AgentReadState,
  AgentRecord,
  DmRecord,
  MessageRecord,
  PairingState,
  RoomRecord,
  StoredEvent,
  ThreadRecord,
} from './records.js';
import type { WriteOp, WriteResult } from './write-ops.js';
export * from './kv/table.js';
export * from './event-feed.js';
import type { EventFeed } from './event-feed.js';
import type { KvTable } from './kv/table.js';
import type { AnyPart, ReadsOf } from './part.js';

// ---- reads ----

/** What retention asks of one conversation (Store.expiredMessages). */
export interface ExpiredQuery {
  /** `room:<id>`, `thread:<id>` or `dm:<id>`. */
  conv: string;
  /** Messages created before this time (ISO) have expired. */
  before?: string;
  /** Only the newest `keep` messages are kept. */
  keep?: number;
  limit: number;
}

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

/**
 * Whose conversations a read returns: the active rooms listing one of `members` (exact member ids,
 * public or not) and the DMs with one of `participants` (scoped ids). Read through an index of
 * members on sqlite and Postgres, so its cost follows those ids' conversations, not the network's.
 */
export interface MemberQuery {
  members: readonly string[];
  participants: readonly string[];
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

/** One file an online backup wrote (Store.backup). */
export interface BackupFile {
  name: string;
  bytes: number;
}

/** What an online backup wrote (its `backup.json` holds it, with the network and versions). */
export interface BackupResult {
  dir: string;
  /** The name of the database file the others are named after (`svc.db`). */
  store_file: string;
  taken_at: string;
  /** The last event seq the copy holds: its restore answers this as its last event seq. */
  last_seq: number;
  files: BackupFile[];
  bytes: number;
}

export interface Store {
  /** The backend's name (`memory`, `sqlite`, ...), for logs and stats only: nothing branches on it. */
  readonly backend: string;
  /** Stored events in sequence order, whoever wrote them. */
  readonly feed: EventFeed;
  /** Exclusive, expiring claims shared by every process that uses this store. */
  readonly leases: Leases;
  /** The expiring key/value table (OAuth state, #27 part 2: kv/table.ts). */
  readonly kv: KvTable;
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
  /**
   * An online backup into the empty folder `dir` while writes go on (sqlite: engine/backup.ts), its
   * manifest holding `meta` too. Absent where the database's tools do it (Postgres) or none is kept.
   */
  backup?(dir: string, meta: Record<string, unknown>): Promise<BackupResult>;
  /**
   * Whether a redaction's scrub is still under way where it runs after the write (sqlite: its
   * search index rebuilt, then a checkpoint). Absent where the write itself scrubs.
   */
  scrubPending?(): boolean;
  /** Seconds since the oldest acknowledged write the search index has not taken in (sqlite's worker). */
  searchIndexLag?(): number;
  /** The size of the store's data (sqlite: its pages and the search file); absent where a server or nothing holds it. */
  dataBytes?(): number;
  /**
   * Runs `work` on one consistent state of the store while writes go on (an export, #40 part 5):
   * Postgres reads in one REPEATABLE READ transaction, sqlite holds a checkpointed `svc.db`. Absent
   * on memory, whose reads all resolve in the tick they are made (read it without yielding).
   */
  snapshot?<T>(work: (s: StoreSnapshot) => Promise<T>): Promise<T>;

  getRoom(id: string): Promise<RoomRecord | undefined>;
  /** Active (not removed) rooms in creation order. */
  listRooms(): Promise<RoomRecord[]>;
  /** One page of active rooms matching the filter, in creation order. */
  pageRooms(filter: RoomFilter, q: PageQuery): Promise<PageResult<RoomRecord>>;
  /** The rooms and DMs a member query names, each in creation order (the unread counts' read). */
  conversationsWith(q: MemberQuery): Promise<{ rooms: RoomRecord[]; dms: DmRecord[] }>;

  getAgent(id: string): Promise<AgentRecord | undefined>;
  /** Registered agents in registration order. */
  listAgents(): Promise<AgentRecord[]>;
  findAgentsByCredential(credentialKey: string): Promise<AgentRecord[]>;

  getMessage(id: string): Promise<MessageRecord | undefined>;
  /**
   * The ids of a conversation's oldest messages past a retention limit (#40 part 4), oldest first:
   * those created before `before`, and those older than its newest `keep`; at most `limit`.
   */
  expiredMessages(q: ExpiredQuery): Promise<string[]>;
  /** A message's earlier versions, oldest first (none when it was never edited, or is deleted). */
  messageVersions(id: string): Promise<MessageVersion[]>;
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

  /** An agent's MCP wait cursor and read markers (`agent.read_state`), if it has any. */
  getAgentReadState(agentId: string): Promise<AgentReadState | undefined>;
  /** The reads of a stored concern (part.ts); undefined when the store was not opened with it. */
  part<P extends AnyPart>(p: P): ReadsOf<P> | undefined;

  /** Messages matching a search, newest first; `has_more` when older matches exist. */
  searchMessages(q: SearchQuery): Promise<PageResult<Message>>;

  /** The seq of each stored message's `message.created` event, by message id (unknown ids are absent). */
  messageSeqs(ids: readonly string[]): Promise<Map<string, number>>;

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
   * Runs a write decided on reads: `decide` reads what it needs through the reads it is given and
   * returns the intents to write (with what to answer once written) or an answer with no write;
   * `write` writes them (the caller's way, timed). Memory and sqlite decide once on their current
   * reads. A networked backend may first decide on reads it kept from earlier requests and confirm
   * them as it writes; when one has changed, or the decision came to anything but its own write,
   * it decides again on fresh reads. So `decide` may run twice: it must not act outside the store
   * before it returns.
   */
  decide<T>(decide: Decide<T>, write: (ops: WriteOp[]) => Promise<WriteResult>): Promise<T>;
}

/** What a whole-network reader (store/network-copy.ts) reads: a Store, or a snapshot's reads. */
export type NetworkSource = Pick<Store, NetworkReads | MoreNetworkReads> & { readonly kv: Pick<KvTable, 'all'> };
type NetworkReads = 'stats' | 'eventsAfter' | 'getMessage' | 'messageVersions' | 'lastEventSeq' | 'listRooms' | 'getRoom';
type MoreNetworkReads = 'listThreads' | 'listDms' | 'listArtifacts' | 'getPairingState' | 'listAgents' | 'getAgentReadState' | 'part';

/**
 * One state of a store, held while Store.snapshot's work runs: reads that all see it (a Postgres
 * REPEATABLE READ READ ONLY transaction), or a sqlite database file not written until the work
 * returns, to be opened apart from the store (`parts`: its parts' names).
 */
export type StoreSnapshot = { kind: 'reads'; source: NetworkSource } | { kind: 'image'; file: string; parts: string[] };

// ---- deciding a write ----

/** The reads a write is decided on. */
export interface DecisionReads {
  room(id: string): Promise<RoomRecord | undefined>;
  agent(id: string): Promise<AgentRecord | undefined>;
  thread(id: string): Promise<ThreadRecord | undefined>;
  message(id: string): Promise<MessageRecord | undefined>;
  dm(id: string): Promise<DmRecord | undefined>;
}

/** What a decision came to: intents to write and the answer once they are written, or an answer alone. */
export type Decision<T> = { write: WriteOp[]; reply: (result: WriteResult) => T | Promise<T> } | { answer: T };

/** A write's decision: a function of its reads (see Store.decide). */
export type Decide<T> = (reads: DecisionReads) => Promise<Decision<T>>;

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

/** StoreError's codes, as a value too: docs/architecture.md's refusal table is tested against it. */
export const STORE_ERROR_CODES = [
  'unknown_cursor',
  'unavailable',
  'conflict',
  'corrupt',
  'not_found',
  'room_exists',
  'agent_taken',
  'thread_room',
] as const;

export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

/** Errors as values with stable codes; the HTTP layer and the network rules map them. */
/** A schema migration an open applied to an existing store. */
export interface SchemaChange {
  from: number;
  to: number;
  /** The svc version that applied it. */
  by: string;
}

/** The one line that refuses a store written by a newer svc (nothing is changed). */
export function newerSchemaMessage(
  where: string,
  found: number,
  supported: number,
  migratedBy: string | undefined,
  version: string,
): string {
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
