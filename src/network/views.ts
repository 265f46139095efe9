// Store records -> wire shapes.

import { fqid } from '../protocol/ids.js';
import type { AgentSummary, DirectConversation, Room, Thread } from '../protocol/types.js';
import type { AgentRecord, DmRecord, RoomRecord, ThreadRecord } from '../store/types.js';

export function roomView(net: string, r: RoomRecord): Room {
  return {
    id: r.id,
    network_id: net,
    fqid: fqid(net, 'rooms', r.id),
    name: r.name,
    members: r.members,
    visibility: r.visibility,
    write_policy: r.write_policy,
    created_at: r.created_at,
    ...(r.retention ? { retention: r.retention } : {}),
  };
}

export function threadView(net: string, t: ThreadRecord): Thread {
  return {
    id: t.id,
    network_id: net,
    fqid: fqid(net, 'threads', t.id),
    room_id: t.room_id,
    ...(t.parent_message_id ? { parent_message_id: t.parent_message_id } : {}),
    message_count: t.message_count,
    last_message_at: t.last_message_at,
  };
}

export function dmView(net: string, d: DmRecord): DirectConversation {
  return {
    id: d.id,
    network_id: net,
    fqid: fqid(net, 'dms', d.id),
    participant_ids: d.participant_ids,
    message_count: d.message_count,
    last_message_at: d.last_message_at,
  };
}

/** An agent summary; `rooms` lists only rooms the caller may see. */
/** `rooms`: the ids of the visible rooms the agent is a member of (roomsOfLocalAgents). */
export function agentView(net: string, a: AgentRecord, rooms: readonly string[]): AgentSummary {
  return {
    id: a.id,
    ...(a.name ? { name: a.name } : {}),
    actor_uid: a.actor_uid,
    fqid: fqid(net, 'agents', a.id),
    network_id: net,
    rooms: [...rooms],
    // Remote A2A agents are claimed under this credential by the a2a-outbound feature.
    ...(a.credential_key.startsWith('a2a:') ? { kind: 'a2a' as const } : {}),
  };
}
