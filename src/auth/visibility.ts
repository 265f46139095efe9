// What a principal may see. One answer for HTTP lists, SSE and attachments: a Viewer is computed
// once per request or subscription and asked about rooms, DMs, agents and events.

import type { Target } from '../protocol/types.js';
import type { DmFilter, DmRecord, RoomFilter, RoomRecord } from '../store/types.js';
import type { Principal } from './principal.js';

export interface Viewer {
  /** Sees everything (mode none, or an unrestricted observe/admin token). */
  all: boolean;
  /** Local agent ids whose topology this viewer sees (allowlisted token or agent token). */
  agents?: ReadonlySet<string>;
  /** A pair-scoped peer: sees public rooms and rooms federated with this pairing. */
  pairingId?: string;
  /** May see DMs at all. */
  dms: boolean;
}

export function viewerOf(p: Principal): Viewer {
  switch (p.kind) {
    case 'trusted':
      return { all: true, dms: true };
    case 'anonymous':
      return { all: false, dms: false };
    case 'agent':
      return { all: false, agents: new Set([p.agentId]), dms: true };
    case 'static': {
      const reader = p.scopes.has('observe') || p.scopes.has('admin');
      if (p.agents) return { all: false, agents: p.agents, dms: reader };
      if (reader) return { all: true, dms: true };
      if (p.scopes.has('pair')) return { all: false, pairingId: p.tokenId, dms: false };
      return { all: false, dms: false };
    }
  }
}

/** Whether a member id (bare local or `net:agent`) names local agent `agentId`. */
export function memberIsLocalAgent(member: string, agentId: string, localNetwork: string): boolean {
  return member === agentId || member === `${localNetwork}:${agentId}`;
}

export function canSeeRoom(v: Viewer, room: RoomRecord, localNetwork: string): boolean {
  if (v.all || room.visibility === 'public') return true;
  if (v.pairingId !== undefined) return room.federation_pairings.includes(v.pairingId);
  if (!v.agents) return false;
  for (const a of v.agents) if (room.members.some((m) => memberIsLocalAgent(m, a, localNetwork))) return true;
  return false;
}

export function canSeeDm(v: Viewer, dm: Pick<DmRecord, 'participant_ids'>, localNetwork: string): boolean {
  if (!v.dms) return false;
  if (v.all) return true;
  if (!v.agents) return false;
  for (const a of v.agents) if (dm.participant_ids.includes(`${localNetwork}:${a}`)) return true;
  return false;
}

/**
 * Whether a stored message is visible: its conversation is (its room, or its thread's room, while
 * the room exists; its DM's participants). Every per-message route asks this one question and
 * answers a message it may not see exactly as one that does not exist (network/access.ts
 * visibleMessage): a 401, a 403 or a refusal naming the room would tell that the id exists and
 * where. `room` is the message's room as stored (undefined for a DM or a room that is gone).
 */
export function canSeeMessage(v: Viewer, target: Target, room: RoomRecord | undefined, localNetwork: string): boolean {
  if (target.kind === 'dm') return canSeeDm(v, target, localNetwork);
  return room !== undefined && !room.removed_at && canSeeRoom(v, room, localNetwork);
}

/** Agents are visible when allowed themselves or members of a visible room. */
export function canSeeAgent(v: Viewer, agentId: string, visibleRooms: readonly RoomRecord[], localNetwork: string): boolean {
  if (v.all || v.agents?.has(agentId)) return true;
  return visibleRooms.some((r) => r.members.some((m) => memberIsLocalAgent(m, agentId, localNetwork)));
}

/**
 * The ids of `rooms` each local agent is a member of (in the rooms' order), read in one pass over
 * the member lists: for lists of agents, where canSeeAgent and the agents' room lists, asked agent
 * by agent, read every member of every room for each (a page of 100 of 300 agents in 20 rooms cost
 * about 3 ms, under load most of `GET /v1/agents`). Ids never hold a colon (protocol/ids.ts), so a
 * member is local when bare or prefixed with this network, as memberIsLocalAgent has it.
 */
export function roomsOfLocalAgents(rooms: readonly RoomRecord[], localNetwork: string): ReadonlyMap<string, readonly string[]> {
  const prefix = `${localNetwork}:`;
  const out = new Map<string, string[]>();
  for (const r of rooms) {
    for (const m of r.members) {
      const id = m.startsWith(prefix) ? m.slice(prefix.length) : m.includes(':') ? undefined : m;
      if (id === undefined) continue;
      const of = out.get(id);
      if (!of) out.set(id, [r.id]);
      // A room naming an agent twice (bare and prefixed) counts once; rooms come one after another.
      else if (of[of.length - 1] !== r.id) of.push(r.id);
    }
  }
  return out;
}

/** canSeeAgent for many agents (a list): `localRooms` is roomsOfLocalAgents of the visible rooms. */
export function canSeeListedAgent(v: Viewer, agentId: string, localRooms: ReadonlyMap<string, readonly string[]>): boolean {
  return v.all || v.agents?.has(agentId) === true || localRooms.has(agentId);
}

/** The store filter that lists exactly the rooms canSeeRoom allows (filtered before paging). */
export function roomFilterOf(v: Viewer, localNetwork: string): RoomFilter {
  if (v.all) return { all: true };
  if (v.pairingId !== undefined) return { pairing: v.pairingId };
  if (!v.agents) return {};
  return { members: [...v.agents].flatMap((a) => [a, `${localNetwork}:${a}`]) };
}

/** The store filter that lists exactly the DMs canSeeDm allows; undefined: none at all. */
export function dmFilterOf(v: Viewer, localNetwork: string): DmFilter | undefined {
  if (!v.dms) return undefined;
  if (v.all) return { all: true };
  if (!v.agents) return undefined;
  return { participants: [...v.agents].map((a) => `${localNetwork}:${a}`) };
}
