// Pure helpers for runtimes: which events wake an agent, and the session key of a conversation
// (SPEC "Session keys"). Mirrors the server's own wake rule so a client can tell wakes apart.

import type { ServiceEvent, Target } from '../protocol/types.js';

export type WakeReason = 'mention' | 'dm';

/** The agent a runtime attaches as. */
export interface AgentIdentity {
  network_id: string;
  id: string;
}

/** Why `event` wakes `agent`: a message that mentions it (or an edit that newly does), or a DM it takes part in; never its own message. */
export function wakeReasonOf(event: ServiceEvent, agent: AgentIdentity): WakeReason | undefined {
  const m = event.message;
  if (!m || (event.type !== 'message.created' && event.type !== 'message.edited')) return undefined;
  if (m.from.type === 'agent' && m.from.id === agent.id && m.from.network_id === agent.network_id) return undefined;
  // An edit wakes only an agent no earlier version of the message mentioned.
  if (event.type === 'message.edited')
    return event.mentions_added?.includes(`svc://${agent.network_id}/agents/${agent.id}`) ? 'mention' : undefined;
  if (m.target.kind === 'dm' && m.target.participant_ids.includes(`${agent.network_id}:${agent.id}`)) return 'dm';
  if (m.mentions.includes(`svc://${agent.network_id}/agents/${agent.id}`)) return 'mention';
  return undefined;
}

/** `room:<id>`, `thread:<id>` or `dm:<id>`: the conversation a target is in. */
export function conversationOf(target: Target): string {
  if (target.kind === 'room') return `room:${target.room_id}`;
  if (target.kind === 'thread') return `thread:${target.thread_id}`;
  return `dm:${target.dm_id}`;
}

/** The persistent runtime-local session key: `service:<network>:room|thread|dm:<id>`. */
export function sessionKeyOf(networkId: string, target: Target): string {
  return `service:${networkId}:${conversationOf(target)}`;
}
