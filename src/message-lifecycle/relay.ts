// How pairings repeat edits, deletes and redactions on their peer (#40), declared by this feature
// (network/relayed-event.ts). A change travels like the message it changes: made here to a
// message sent here (never to one that arrived by relay: only a message's home network changes
// it), in a room the pairing federates or a DM with a participant of the peer. Both networks store
// a relayed message under the same id, so the request names it by its id there too, as its
// sender. Pure.

import type { RelayedEvent } from '../network/relayed-event.js';
import type { Message, Target } from '../protocol/types.js';

const MESSAGE_PATH = /^\/v1\/messages\/[^/]+$/;

/** The message's conversation when it was sent on network `local` (a relayed copy has an origin). */
function madeHere(m: Message | undefined, local: string): Target | undefined {
  return m && !m.origin && m.from.network_id === local ? m.target : undefined;
}

const senderOf = (m: Message) => ({ type: m.from.type, id: m.from.id, network_id: m.from.network_id });
const pathOf = (m: Message) => `/v1/messages/${encodeURIComponent(m.id)}`;

export const editRelay: RelayedEvent = {
  type: 'message.edited',
  // The log gives a message as it is now: an edit read after its message was deleted (the peer was
  // away) holds the tombstone, and is not repeated; the delete that follows it says everything.
  madeHere: (e, local) => (e.message?.deleted_at === undefined ? madeHere(e.message, local) : undefined),
  request: (e) => {
    const m = e.message!;
    // Mentions travel as canonical FQIDs, as on a relayed send; the peer resolves them against its
    // members. The version lets the peer tell a repeat (sent again after a lost answer) from a new edit.
    return {
      method: 'PATCH',
      path: pathOf(m),
      body: {
        parts: m.parts,
        ...(m.mentions.length > 0 ? { mentions: m.mentions } : {}),
        from: senderOf(m),
        ...(m.version !== undefined ? { version: m.version } : {}),
      },
    };
  },
  accepts: (method, pathname) => method === 'PATCH' && MESSAGE_PATH.test(pathname),
  logFields: (e) => ({ message_id: e.message?.id, version: e.message?.version }),
};

export const deleteRelay: RelayedEvent = {
  type: 'message.deleted',
  madeHere: (e, local) => madeHere(e.message, local),
  request: (e) => ({ method: 'DELETE', path: pathOf(e.message!), body: { from: senderOf(e.message!) } }),
  accepts: (method, pathname) => method === 'DELETE' && MESSAGE_PATH.test(pathname),
  logFields: (e) => ({ message_id: e.message?.id }),
};

const REDACT_PATH = /^\/v1\/messages\/[^/]+\/redact$/;

/** A redaction made here of a message sent here: the peer scrubs its copy too. */
export const redactRelay: RelayedEvent = {
  type: 'message.redacted',
  madeHere: (e, local) => madeHere(e.message, local),
  request: (e) => ({ method: 'POST', path: `${pathOf(e.message!)}/redact`, body: { from: senderOf(e.message!) } }),
  accepts: (method, pathname) => method === 'POST' && REDACT_PATH.test(pathname),
  logFields: (e) => ({ message_id: e.message?.id }),
};

export const lifecycleRelays: readonly RelayedEvent[] = [editRelay, deleteRelay, redactRelay];
