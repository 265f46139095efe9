// The effects a batch of intents resolves to (intents.ts), and the synchronous view of stored state
// they are resolved against. Each in-process backend applies effects its own way.

import type { Artifact, Message, MessageVersion, ServiceEvent } from '../protocol/types.js';
import type { AgentReadState, AgentRecord, DmRecord, MessageRecord, PairingState, RoomRecord, ThreadRecord } from './types.js';
import type { PartEffect } from './part.js';

/** What a batch does to stored state, in order. */
export type Effect =
  | { op: 'room.put'; room: RoomRecord }
  | { op: 'agent.put'; agent: AgentRecord }
  | { op: 'agent.delete'; id: string }
  | { op: 'message.insert'; record: MessageRecord }
  // A stored message's new body (an edit or a tombstone); its conv and event_id do not change.
  | { op: 'message.update'; record: MessageRecord }
  // An edited message's earlier version, kept for GET /v1/messages/{id}/versions.
  | { op: 'message.version'; message_id: string; version: MessageVersion }
  // Drops a message's artifacts (an edit, before its new ones are inserted).
  | { op: 'artifacts.clear'; message_id: string }
  // What a deleted message leaves behind: its artifacts, versions and search entry, and what each
  // part of the store keeps about it (part.ts, `forget`).
  | { op: 'message.forget'; message_id: string }
  // A redacted message (#40 part 3), its tombstone given: what still holds its content beyond the
  // rows message.forget drops is rewritten (each part's `scrub`; sqlite's search index and file).
  | { op: 'message.scrub'; message_id: string; message: Message }
  // A message removed for good (retention): its row, the events holding it, and all message.forget drops.
  | { op: 'message.purge'; message_id: string; conv: string }
  | { op: 'thread.put'; thread: ThreadRecord }
  // participants_stored: a later message of a stored DM, whose participants (fixed when it was
  // created) are stored already; only its counts change. sqlite then leaves its member index alone.
  | { op: 'dm.put'; dm: DmRecord; participants_stored?: true }
  | { op: 'artifact.insert'; artifact: Artifact }
  | { op: 'event.append'; event: ServiceEvent }
  | { op: 'pairing.put'; pairing_id: string; state: PairingState }
  | { op: 'pairing.delete'; pairing_id: string }
  | { op: 'read_state.put'; agent_id: string; state: AgentReadState }
  | { op: 'read_state.delete'; agent_id: string }
  | PartEffect;

/**
 * Synchronous reads of the core's current state (records are the backend's own: not mutated here).
 * A part decides on its own state (part.ts).
 */
export interface StateView {
  /** A room, removed or not. */
  room(id: string): RoomRecord | undefined;
  /** Active rooms in creation order. */
  rooms(): RoomRecord[];
  agent(id: string): AgentRecord | undefined;
  hasMessage(id: string): boolean;
  message(id: string): MessageRecord | undefined;
  /** A message's earlier versions, oldest first (none when it was never edited). */
  versions(id: string): MessageVersion[];
  thread(id: string): ThreadRecord | undefined;
  dm(id: string): DmRecord | undefined;
  pairing(id: string): PairingState | undefined;
  readState(agentId: string): AgentReadState | undefined;
}
