// Events beyond messages that pairings repeat on their peer, as the feature that owns each declares
// it: which conversation an event belongs to, the request that repeats it, and which of
// a peer's requests are such repeats. The pairings decide where each goes by the same rule as the
// messages of that conversation (sharesTarget), without knowing what the event is.

import type { ServiceEvent, Target } from '../protocol/types.js';

/** What a pairing knows when it decides whether a message or event goes to its peer. */
export interface RelayFacts {
  localNetworkId: string;
  /** The remote network id, configured or learned; undefined before the peer first answers. */
  remoteNetworkId?: string;
  /** The remote advertises capabilities.direct_messages: true. */
  remoteDirectMessages: boolean;
  /** The local room exists and its federation allows this pairing. */
  roomFederated: (roomId: string) => boolean;
}

/** Whether a conversation is shared with the pairing: a room it federates, or a DM with a participant of the peer that takes DMs. */
export function sharesTarget(t: Target, f: RelayFacts): boolean {
  if (t.kind === 'room' || t.kind === 'thread') return f.roomFederated(t.room_id);
  if (!f.remoteNetworkId || !f.remoteDirectMessages) return false;
  const prefix = `${f.remoteNetworkId}:`;
  return t.participant_ids.some((p) => p.startsWith(prefix));
}

/** A request a pairing sends to repeat an event on its peer. */
export interface RelayRequest {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body: Record<string, unknown>;
}

/** An event type a feature has pairings repeat on their peer. */
export interface RelayedEvent {
  readonly type: string;
  /**
   * The conversation of `e` when an actor of network `local` made it here; undefined when it is
   * not this network's to repeat (it arrived by relay: no echo, no multi-hop).
   */
  madeHere(e: ServiceEvent, local: string): Target | undefined;
  /** The request that repeats `e` on a peer, as its actor of this network. */
  request(e: ServiceEvent): RelayRequest;
  /** Whether a request a relay peer sends (method, path without query) is one of these repeats. */
  accepts(method: string, pathname: string): boolean;
  /** What names `e` in a log line (ids, never content). */
  logFields(e: ServiceEvent): Record<string, unknown>;
}
