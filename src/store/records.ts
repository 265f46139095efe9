// Stored records and the event body: what the store keeps, as the rest of svc sees it.
// Re-exported by ./types.js, the import point of the store contract.

import type { Message, RetentionPolicy, ServiceEvent, Visibility, WritePolicy } from '../protocol/types.js';

export interface RoomRecord {
  id: string;
  name: string;
  members: string[];
  visibility: Visibility;
  write_policy: WritePolicy;
  /** Pairing ids allowed to relay into this room (rooms[].federation.pairings). */
  federation_pairings: string[];
  /** The room's own retention (#40 part 4); absent: server.retention alone. */
  retention?: RetentionPolicy;
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

// Each stored part's records live in its own folder (concerns.ts lists them).

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

/** The newest message an agent has read in one conversation. */
export interface ReadMarker {
  id: string;
  at: string;
}

/**
 * Where one agent's MCP session over HTTP stands (#27 part 1): the wait cursor of
 * wait_for_messages and the read markers of list_conversations, kept per agent so that any
 * instance answers any call and a restart forgets nothing.
 */
export interface AgentReadState {
  /** The last event sequence number wait_for_messages has consumed. */
  cursor: number;
  /** When this agent's markers began: messages older than this count as read. */
  since: string;
  /** Read markers by conversation key (`room:<id>`, `thread:<id>`, `dm:<id>`). */
  read: Record<string, ReadMarker>;
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
