// How pairings repeat reactions on their peer (#28), declared by the reactions feature
// (network/relayed-event.ts). A reaction travels like the messages of its conversation: made by an
// actor of this network (never one that arrived by relay: no echo), on a message in a room the
// pairing federates or a DM with a participant of the peer. Both networks store a relayed message
// under the same id, so the request names the message by its id there too. Pure.

import { type RelayedEvent, type RelayFacts, type RelayRequest, sharesTarget } from '../network/relayed-event.js';
import type { ReactionChange, Target } from '../protocol/types.js';

/** A reaction to a relayed message: PUT or DELETE /v1/messages/{id}/reactions/{emoji}. */
const REACTION_PATH = /^\/v1\/messages\/[^/]+\/reactions\/[^/]+$/;

/** The conversation of `r` when an actor of network `local` made it here. */
function madeHere(r: ReactionChange, local: string): Target | undefined {
  return r.from.network_id === local && r.by.startsWith(`${local}:`) ? r.target : undefined;
}

/** Whether reaction change `r` is relayed to this pairing. */
export function isReactionRelayable(r: ReactionChange, f: RelayFacts): boolean {
  const t = madeHere(r, f.localNetworkId);
  return t !== undefined && sharesTarget(t, f);
}

/** The PUT or DELETE that repeats `r` on the peer, as the sender of this network. */
export function reactionRequestFor(r: ReactionChange): RelayRequest {
  return {
    method: r.action === 'added' ? 'PUT' : 'DELETE',
    path: `/v1/messages/${encodeURIComponent(r.message_id)}/reactions/${encodeURIComponent(r.emoji)}`,
    body: {
      from: { type: r.from.type, id: r.from.id, ...(r.from.name ? { name: r.from.name } : {}), network_id: r.from.network_id },
    },
  };
}

/** The reaction change an event carries (only `reaction.updated` events reach these). */
const changeOf = (e: { reaction?: ReactionChange }): ReactionChange => e.reaction!;

export const reactionRelay: RelayedEvent = {
  type: 'reaction.updated',
  madeHere: (e, local) => (e.reaction ? madeHere(e.reaction, local) : undefined),
  request: (e) => reactionRequestFor(changeOf(e)),
  accepts: (method, pathname) => (method === 'PUT' || method === 'DELETE') && REACTION_PATH.test(pathname),
  logFields: (e) => ({ message_id: changeOf(e).message_id, emoji: changeOf(e).emoji }),
};
