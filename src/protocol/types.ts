// Wire shapes of the spec, shared by the server, the typed client and the tests.

import type { RetentionPolicy } from './lifecycle.js';
import type { Visibility, WritePolicy } from './room-policy.js';
import type { Part } from './part.js';

export type { Part, PartKind } from './part.js';
export type { Visibility, WritePolicy } from './room-policy.js';
export type { ApplyRequest, ApplyResponse, DeclaredA2aAgent, RoomDeclaration } from './apply.js';

export type { EditRequest, MessageVersion, MessageVersions, RetentionPolicy } from './lifecycle.js';

export const HTTP_PROTOCOL = 'service.http.v1';
export const ATTACH_PROTOCOL = 'service.attach.v1';
export const PAIR_PROTOCOL = 'service.pair.v1';

export type Scope = 'observe' | 'write' | 'admin' | 'attach' | 'pair' | 'a2a';

export type Target =
  | { kind: 'room'; room_id: string }
  | { kind: 'thread'; room_id: string; thread_id: string; parent_message_id?: string }
  | { kind: 'dm'; dm_id: string; participant_ids: string[] };

export interface Actor {
  type: string;
  id: string;
  name?: string;
  network_id: string;
  fqid: string;
}

export interface MessageOrigin {
  network_id: string;
  message_id: string;
}

export interface Message {
  id: string;
  network_id: string;
  origin?: MessageOrigin;
  target: Target;
  from: Actor;
  parts: Part[];
  mentions: string[];
  created_at: string;
  /** Reactions, one entry per emoji in the order first used; absent when there are none (#28). */
  reactions?: ReactionSummary[];
  /** When the message was last edited (#40 part 1); absent when it never was. */
  edited_at?: string;
  /** Its version: 1 is the message as sent, each edit adds one; absent when it was never edited. */
  version?: number;
  /**
   * When it was deleted (#40 part 2): a tombstone keeps its id, target, sender and place, with no
   * parts, mentions, artifacts or reactions.
   */
  deleted_at?: string;
  /** When an operator redacted it (#40 part 3): a tombstone whose content the store scrubbed. */
  redacted_at?: string;
}

/** One emoji's reactions to a message: how many, and who (scoped ids, oldest first). */
export interface ReactionSummary {
  emoji: string;
  count: number;
  by: string[];
}

/** The payload of a `reaction.updated` event. */
export interface ReactionChange {
  message_id: string;
  target: Target;
  emoji: string;
  action: 'added' | 'removed';
  /** Who reacted, scoped (`<network_id>:<id>`), and as an actor. */
  by: string;
  from: Actor;
  /** The emoji's count on the message after the change. */
  count: number;
}

/** The answer to PUT or DELETE /v1/messages/{id}/reactions/{emoji} (#28). */
export interface ReactionResult {
  message_id: string;
  emoji: string;
  /** Who reacted, scoped. */
  by: string;
  reacted: boolean;
  /** False when the request repeated the current state. */
  changed: boolean;
  /** Every reaction to the message after the change. */
  reactions: ReactionSummary[];
}

export interface Artifact {
  id: string;
  network_id: string;
  fqid: string;
  message_id: string;
  target: Target;
  part_index: number;
  kind: string;
  media_type?: string;
  filename?: string;
  url?: string;
  created_at: string;
}

export interface Room {
  id: string;
  network_id: string;
  fqid: string;
  name: string;
  members: string[];
  visibility: Visibility;
  write_policy: WritePolicy;
  created_at: string;
  /** The room's own retention, when it declares one (server.retention fills the fields it leaves out). */
  retention?: RetentionPolicy;
  /**
   * What the server's svc.yaml declares for this room, when it declares it (GET /v1/rooms and
   * /v1/rooms/{id} only): svc.yaml wins, each reload sets these again, and `svc apply` refuses to
   * differ from them (409).
   */
  declared_by_config?: { name?: string; members?: string[]; visibility?: Visibility; write_policy?: WritePolicy };
}

export interface Thread {
  id: string;
  network_id: string;
  fqid: string;
  room_id: string;
  parent_message_id?: string;
  message_count: number;
  last_message_at: string;
}

export interface DirectConversation {
  id: string;
  network_id: string;
  fqid: string;
  participant_ids: string[];
  message_count: number;
  last_message_at: string;
}

export interface AgentSummary {
  id: string;
  name?: string;
  actor_uid: string;
  fqid: string;
  network_id: string;
  rooms: string[];
  /** `a2a`: a remote A2A agent svc calls on its behalf (docs/a2a.md); absent for agents that connect themselves. */
  kind?: 'a2a';
}

export interface AgentRegistration {
  network_id: string;
  agent_id: string;
  actor_uid: string;
  actor_uri: string;
  display_name: string;
  agent_token?: string;
  created_at: string;
  updated_at: string;
}

export interface Page {
  has_more: boolean;
  next_before?: string;
}

export interface Warning {
  severity: 'info' | 'warning' | 'error';
  code: string;
  message: string;
  action?: string;
  docs_url?: string;
}

export interface NetworkDocument {
  id: string;
  /**
   * The network's unique id, kept in its store: every instance of this network answers the same
   * one, and no other network does, whatever its `id`. Clients key what they keep per network by
   * `id` and `uid`. Absent from servers before it.
   */
  uid?: string;
  name: string;
  version: string;
  protocols: { http: string[]; attach: string[]; pair: string[] };
  capabilities: {
    event_stream: 'sse';
    attachment_protocol: 'websocket';
    human_ingress: boolean;
    direct_messages: boolean;
    message_pagination: 'cursor';
    pairings: boolean;
  };
  console: { can_send_human: boolean };
  warnings: Warning[];
  /**
   * How long this network keeps messages (server.retention, #40 part 4); absent: forever. Each
   * network of a pairing applies its own, and its peer's pairing check reports it.
   */
  retention?: RetentionPolicy;
}

export type PairingStatus = 'connected' | 'degraded' | 'incompatible' | 'error' | 'pending' | 'unknown';

export interface PairingDiagnostics {
  checked_at?: string;
  remote_version?: string;
  remote_network_id?: string;
  remote_protocols?: { http?: string[]; pair?: string[] };
  /** The peer's own retention (its /v1/network `retention`): what it keeps of relayed messages. Absent: forever. */
  remote_retention?: RetentionPolicy;
  reason?: string;
  message?: string;
}

/** Relayed messages a paired network refused (see src/pairing/refusals.ts). */
export interface PairingRefusals {
  total: number;
  by_reason: Record<string, number>;
  recent: { message_id: string; reason: string; status: number; room_id?: string; at: string; fix: string }[];
}

export interface Pairing {
  id: string;
  remote_network_id: string;
  remote_network_name: string;
  remote_base_url: string;
  status: PairingStatus;
  diagnostics?: PairingDiagnostics;
  /** Relayed messages the remote refused for good, by reason with the last few ids (additive; since this process started). */
  refused?: PairingRefusals;
}

export interface AgentEvent {
  agent_id: string;
  network_id: string;
  fqid?: string;
  name?: string;
  message_id?: string;
  reason?: string;
  target?: Target;
  error?: string;
}

/**
 * Every event type of the spec (and ours): the one list. The typed client follows these on the SSE
 * stream, and the console gets them from the server (`/console/event-types.js`), so a new type is
 * added here and nowhere else.
 */
export const EVENT_TYPES = [
  'message.created',
  'message.edited',
  'message.deleted',
  'message.redacted',
  'thread.created',
  'dm.created',
  'room.created',
  'room.members.updated',
  'room.removed',
  'agent.removed',
  'agent.connected',
  'agent.disconnected',
  'agent.wake.delivered',
  'agent.wake.failed',
  'pairing.updated',
  'stream.replay_gap',
  'conversation.loop_guard',
  'reaction.updated',
  'message.receipts',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The event envelope. Payload keys beyond `message` and `agent` are ours (SPEC leaves them open). */
export interface ServiceEvent {
  id: string;
  type: EventType;
  network_id: string;
  created_at: string;
  message?: Message;
  agent?: AgentEvent;
  room?: Room;
  thread?: Thread;
  dm?: DirectConversation;
  pairing?: Pairing;
  /** For `reaction.updated` (#28). */
  reaction?: ReactionChange;
  /**
   * For `message.edited`: the mentions no earlier version of the message had (FQIDs). Only these
   * agents are woken by an edit, so an agent is woken at most once per message.
   */
  mentions_added?: string[];
  /** Room membership delta for `room.members.updated`. */
  added?: string[];
  removed?: string[];
  /** For removal events: the removed entity id. */
  room_id?: string;
  agent_id?: string;
  /** For `message.receipts`: whose receipts in one conversation moved, and how far (docs/receipts.md). */
  receipts?: ReceiptsChange;
}

/** The receipts that changed in one conversation over one flush (a `message.receipts` event). */
export interface ReceiptsChange {
  target: Target;
  marks: { reader: Reader; kind: 'delivered' | 'read'; up_to_seq: number; at: string }[];
}

/** Who reads (whom a receipt is for, whom a read counts for): an agent (local id, or scoped for a remote agent) or a person. */
export interface Reader {
  type: 'agent' | 'human';
  id: string;
}

/** @deprecated the same type as `Reader`, by its earlier name (kept for the client package's users). */
export type ReceiptReader = Reader;

/** One reader's receipt of a message. */
export interface Receipt {
  reader: Reader;
  state: 'pending' | 'delivered' | 'read';
  delivered_at?: string;
  read_at?: string;
}

/** GET /v1/messages/{id}/receipts (docs/receipts.md). */
export interface MessageReceipts {
  message_id: string;
  receipts: Receipt[];
}

export interface SendRequest {
  id?: string;
  target: Target | { kind: 'dm'; dm_id?: string; participant_ids?: string[] };
  from: { type: string; id: string; name?: string; network_id?: string };
  parts: Part[];
  mentions?: string[];
  origin?: MessageOrigin;
}

export interface SendResponse {
  message_id: string;
  event_id: string;
  accepted: true;
  thread_created: boolean;
  dm_created: boolean;
  /** Additive: mention candidates that resolved to no member, when there are any (first acceptance only). */
  unmentioned?: Unmentioned[];
}

/** A mention candidate that was not mentioned: why, and the command that fixes it. */
export interface Unmentioned {
  /** The agent as the sender named it: a local id, or `net:agent`. */
  id: string;
  /** `not_member` (of the room), `not_participant` (of the DM), `unknown_agent`, `ambiguous`. */
  reason: 'not_member' | 'not_participant' | 'unknown_agent' | 'ambiguous';
  /** The reason in words. */
  detail: string;
  /** What fixes it: a command, or the mention as it should be written. */
  fix: string;
}

export interface ErrorBody {
  error: string;
  code: string;
  request_id?: string;
}

export interface RemovedResponse {
  removed: true;
  kind: 'room' | 'agent';
  id: string;
  mode: 'soft';
}
