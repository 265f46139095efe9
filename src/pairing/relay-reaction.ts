// Which reactions go to a pairing, and the request that carries one there (#28). A reaction
// travels like the messages of its conversation: made by an actor of this network (never one that
// arrived by relay: no echo), on a message in a room the pairing federates or a DM with a
// participant of the peer. Both networks store a relayed message under the same id, so the
// request names the message by its id there too. Pure.

import type { ReactionChange } from '../protocol/types.js';
import type { RelayFacts } from './relay-message.js';

/** Whether reaction change `r` is relayed to this pairing. */
export function isReactionRelayable(r: ReactionChange, f: RelayFacts): boolean {
  if (r.from.network_id !== f.localNetworkId || !r.by.startsWith(`${f.localNetworkId}:`)) return false;
  const t = r.target;
  if (t.kind === 'room' || t.kind === 'thread') return f.roomFederated(t.room_id);
  if (!f.remoteNetworkId || !f.remoteDirectMessages) return false;
  const prefix = `${f.remoteNetworkId}:`;
  return t.participant_ids.some((p) => p.startsWith(prefix));
}

/** The PUT or DELETE that repeats `r` on the peer, as the sender of this network. */
export function reactionRequestFor(r: ReactionChange): { method: 'PUT' | 'DELETE'; path: string; body: Record<string, unknown> } {
  return {
    method: r.action === 'added' ? 'PUT' : 'DELETE',
    path: `/v1/messages/${encodeURIComponent(r.message_id)}/reactions/${encodeURIComponent(r.emoji)}`,
    body: {
      from: { type: r.from.type, id: r.from.id, ...(r.from.name ? { name: r.from.name } : {}), network_id: r.from.network_id },
    },
  };
}
