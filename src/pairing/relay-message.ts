// Which local messages go to a pairing, and the POST /v1/messages body that carries one there
// (the spec, POST /v1/messages rule 6). Pure.

import type { Message, Part, SendRequest } from '../protocol/types.js';
import { sharesTarget, type RelayFacts } from '../network/relayed-event.js';

export type { RelayFacts };

/**
 * Whether `m` is relayed to this pairing: originated here, never arrived by relay, target shared,
 * and not deleted. The event log holds a message as it is now (edited, or a tombstone), so a
 * message deleted before the pairing relayed it is a tombstone here: the peer never gets it (an
 * empty message it would refuse), and the delete that follows finds nothing there.
 */
export function isRelayable(m: Message, f: RelayFacts): boolean {
  if (m.origin || m.deleted_at !== undefined || m.from.network_id !== f.localNetworkId) return false;
  return sharesTarget(m.target, f);
}

/** How a file of a relayed message reaches the peer (relay-files.ts): its copy there, or a reference to the one here. */
export type RelayedFile = { file_id: string } | { origin_file: { file_id: string; sha256: string } };

/**
 * A file part as the peer gets it (`carried`: local id -> how it goes, relay-files.ts): the peer's
 * copy when the file was carried, its metadata with a reference to the file here (`origin_file`,
 * fetched by the peer on demand), or its metadata alone when it is no longer stored (a local id
 * means nothing there).
 */
export function relayedPart(p: Part, carried: ReadonlyMap<string, RelayedFile>): Part {
  if (p.kind !== 'file' || p.file_id === undefined) return p;
  const how = carried.get(p.file_id);
  if (how && 'file_id' in how) return { kind: 'file', file_id: how.file_id };
  const { file_id: _local, ...meta } = p;
  return how ? { ...meta, origin_file: how.origin_file } : meta;
}

/**
 * The send request that relays `m`: same id (the remote's idempotency key, so a resend is a no-op),
 * `origin` naming this network, the sender with its home network, mentions as canonical FQIDs.
 */
export function relayRequestFor(
  m: Message,
  localNetworkId: string,
  opts: { withParent?: boolean; carried?: ReadonlyMap<string, RelayedFile> } = {},
): SendRequest {
  const t = m.target;
  let target: SendRequest['target'];
  if (t.kind === 'room') target = { kind: 'room', room_id: t.room_id };
  else if (t.kind === 'thread') {
    target = {
      kind: 'thread',
      room_id: t.room_id,
      thread_id: t.thread_id,
      ...(t.parent_message_id && opts.withParent !== false ? { parent_message_id: t.parent_message_id } : {}),
    };
  } else target = { kind: 'dm', participant_ids: [...t.participant_ids] };
  return {
    id: m.id,
    target,
    from: { type: m.from.type, id: m.from.id, ...(m.from.name ? { name: m.from.name } : {}), network_id: m.from.network_id },
    parts: m.parts.map((p) => relayedPart(p, opts.carried ?? new Map())),
    ...(m.mentions.length > 0 ? { mentions: m.mentions } : {}),
    origin: { network_id: localNetworkId, message_id: m.id },
  };
}

/** How a relay answer is handled: taken, refused for good (logged, skipped), or try again later. */
export function classifyRelayAnswer(status: number): 'delivered' | 'refused' | 'retry' {
  if (status >= 200 && status < 300) return 'delivered';
  // 401: our pairing token is not (yet) accepted there; 408/425/429/5xx: passing trouble.
  if (status === 401 || status === 408 || status === 425 || status === 429 || status >= 500) return 'retry';
  return 'refused';
}
