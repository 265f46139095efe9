// Relayed messages a paired network refused for good (403 not a member, 404, 422 ...). The spec
// says nothing is retried or backfilled, so the operator's only way to know is this tally: counts by
// reason and the last few message ids, per pairing, per process since start (like the /metrics
// counters it mirrors; instances sharing a Postgres store each count what they relayed). The
// reason, the fix and the tally are pure; the manager records into it.

import type { Message, PairingRefusals } from '../protocol/types.js';

/** How many refused message ids a pairing keeps. */
export const RECENT_REFUSALS = 5;

/** One refused message, as the pairing listing (`refused.recent`) shows it. */
export type RelayRefusal = PairingRefusals['recent'][number];

/** The remote's error code (`forbidden`, `not_found` ...), else `http_<status>`. */
export function refusalReason(status: number, body: unknown): string {
  const code = body !== null && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[a-z][a-z0-9_]{0,40}$/.test(code) ? code : `http_${status}`;
}

export interface FixFacts {
  /** The remote network id (or the pairing id when it is not known yet). */
  remote: string;
  localNetworkId: string;
  pairingId: string;
  message: Pick<Message, 'from' | 'target'>;
  /** The remote's error text. */
  error?: string;
}

/** The fix on the other side, naming the command when the refusal says which one. */
export function refusalFix(f: FixFacts): string {
  const t = f.message.target;
  const member = `${f.localNetworkId}:${f.message.from.id}`;
  const room = t.kind === 'dm' ? undefined : t.room_id;
  const err = f.error ?? '';
  if (room && /not a member/.test(err)) return `on ${f.remote}: svc rooms members ${room} --add ${member}`;
  if (room && /federat/.test(err)) return `on ${f.remote}: add ${f.pairingId} to rooms[].federation.pairings of room ${room} in svc.yaml`;
  if (room && /not found/.test(err)) return `on ${f.remote}: create room ${room} with federation.pairings [${f.pairingId}] in svc.yaml`;
  if (t.kind === 'dm' && /direct messages/i.test(err)) return `on ${f.remote}: turn on server.direct_messages`;
  return `on ${f.remote}: see its log for the refusal of this message (${err || 'no reason given'})`;
}

/** The per-pairing tally of refused relays (process-local). */
export class RefusalTally {
  private total = 0;
  private readonly byReason = new Map<string, number>();
  private recent: RelayRefusal[] = [];

  record(r: RelayRefusal): void {
    this.total++;
    this.byReason.set(r.reason, (this.byReason.get(r.reason) ?? 0) + 1);
    this.recent = [r, ...this.recent].slice(0, RECENT_REFUSALS);
  }

  /** The listing's view; undefined while nothing was refused. */
  view(): PairingRefusals | undefined {
    if (this.total === 0) return undefined;
    return { total: this.total, by_reason: Object.fromEntries(this.byReason), recent: this.recent.map((r) => ({ ...r })) };
  }
}
