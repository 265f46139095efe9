// The one store interface. Backends: memory (nothing kept) and sqlite (sql.js + fsynced journal).
// Reads are synchronous (both backends hold their data in memory); writes are atomic batches of
// domain operations whose promise resolves only once the batch is durable.

import type {
  Artifact,
  Message,
  ServiceEvent,
  Visibility,
  WritePolicy,
} from '../protocol/types.js';
import type { SearchTerms } from '../protocol/search-text.js';

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

export interface StoredEvent {
  /** Durable sequence number: the attachment cursor. */
  seq: number;
  event: ServiceEvent;
}

/** One atomic write is a list of these, applied in order. */
export type WriteOp =
  | { op: 'room.put'; room: RoomRecord }
  | { op: 'agent.put'; agent: AgentRecord }
  | { op: 'agent.delete'; id: string }
  | { op: 'message.insert'; record: MessageRecord }
  | { op: 'thread.put'; thread: ThreadRecord }
  | { op: 'dm.put'; dm: DmRecord }
  | { op: 'artifact.insert'; artifact: Artifact }
  | { op: 'event.append'; event: ServiceEvent };

export interface WriteResult {
  /** Sequence numbers assigned to the batch's `event.append` ops, in order. */
  event_seqs: number[];
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
  backend: 'sqlite' | 'memory';
  messages: number;
  events: number;
  last_event_seq: number;
  journal_bytes?: number;
  db_bytes?: number;
  checkpoints?: number;
}

export interface Store {
  readonly backend: 'sqlite' | 'memory';

  /** Applies the ops atomically; resolves once durable. Throws StoreError. */
  write(ops: WriteOp[]): Promise<WriteResult>;
  /** Resolves once everything applied so far is durable (idempotent hits wait on this). */
  sync(): Promise<void>;
  /** Health probe for /readyz. */
  ping(): boolean;
  stats(): StoreStats;
  /** Flushes, checkpoints and releases files. */
  close(): Promise<void>;

  getRoom(id: string): RoomRecord | undefined;
  /** Active (not removed) rooms in creation order. */
  listRooms(): RoomRecord[];

  getAgent(id: string): AgentRecord | undefined;
  /** Registered agents in registration order. */
  listAgents(): AgentRecord[];
  findAgentsByCredential(credentialKey: string): AgentRecord[];

  getMessage(id: string): MessageRecord | undefined;
  /** Messages of one conversation (`room:<id>`, `thread:<id>`, `dm:<id>`), oldest first. */
  listMessages(conv: string, q: PageQuery): PageResult<Message>;

  getThread(id: string): ThreadRecord | undefined;
  listThreads(roomId: string, q: PageQuery): PageResult<ThreadRecord>;

  getDm(id: string): DmRecord | undefined;
  /** All DMs in creation order. */
  listDms(): DmRecord[];

  listArtifacts(filter: ArtifactFilter, q: PageQuery): PageResult<Artifact>;

  /** Messages matching a search, newest first; `has_more` when older matches exist. */
  searchMessages(q: SearchQuery): Promise<PageResult<Message>>;

  /** Stored events with seq > `seq`, oldest first, at most `limit`. */
  eventsAfter(seq: number, limit: number): StoredEvent[];
  lastEventSeq(): number;
}

export type StoreErrorCode = 'unknown_cursor' | 'unavailable' | 'conflict' | 'corrupt';

/** Errors as values with stable codes; the HTTP layer maps them to the catalogue. */
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
