// Room write policy (the spec, Resources > Room): who may write into a room or its threads.
// Pure: the caller says who the sender is and whether the caller owns that agent.

import type { WritePolicy } from '../protocol/types.js';
import { isAdminWriter, isOperator, type Principal } from './principal.js';

export interface SenderFacts {
  /** The sender as a room member id: bare for local actors, `net:agent` for remote ones. */
  memberId: string;
  /** A local agent registered here whose credential the caller holds. */
  registeredLocalAgent: boolean;
}

export type WriteDecision = { allow: true } | { allow: false; reason: string };

export function decideRoomWrite(
  p: Principal,
  room: { id: string; members: readonly string[]; write_policy: WritePolicy },
  s: SenderFacts,
): WriteDecision {
  const member = room.members.includes(s.memberId);
  switch (room.write_policy) {
    case 'members':
      if (member || isAdminWriter(p)) return { allow: true };
      return { allow: false, reason: `${s.memberId} is not a member of room ${room.id} (write_policy: members)` };
    case 'registered_agents':
      if (member || s.registeredLocalAgent || isAdminWriter(p)) return { allow: true };
      return { allow: false, reason: `room ${room.id} accepts members and registered local agents only (write_policy: registered_agents)` };
    case 'operators':
      if (isOperator(p)) return { allow: true };
      return { allow: false, reason: `room ${room.id} accepts only operator credentials (write_policy: operators)` };
  }
}
