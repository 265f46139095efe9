// Who holds an agent's attachment, as this instance knows it: the runtime's User-Agent, its
// address and since when. A second runtime refused with `session_in_use` is told this, so the
// person at it can find the one to stop. Only this instance's attachments are known: the lease
// in the store says only which credential holds it (docs/live.md, One attachment per agent).

import type { IncomingMessage } from 'node:http';
import { clientAddress } from '../../http/token-buckets.js';

/** The runtime holding an agent's attachment on this instance. */
export interface AttachHolder {
  /** The User-Agent it sent (svc's own: `svc-agent-run/<version> (pid N)`, `svc-mcp/...`), cut short. */
  client?: string;
  address: string;
  /** When its attachment became ready (epoch ms), 0 until then: a number set in place, so ten thousand holders share one shape and keep no date string. */
  since: number;
}

/** A User-Agent longer than this is cut: it is echoed to another runtime, never stored. */
const CLIENT_MAX = 120;

/** The holder-to-be of the attachment opened by `req`. */
export function peerOf(req: IncomingMessage): AttachHolder {
  const ua = req.headers['user-agent']?.trim();
  return { client: ua ? ua.slice(0, CLIENT_MAX) : undefined, address: clientAddress(req), since: 0 };
}

/** The `session_in_use` refusal, naming the holder; none here: held elsewhere, or a lease not yet lapsed. */
export function inUseMessage(agentId: string, h: AttachHolder | undefined, leaseMs: number): string {
  const who = h
    ? `${h.client ?? 'a client that sent no User-Agent'} from ${h.address}${h.since ? ` since ${new Date(h.since).toISOString()}` : ''}`
    : `another instance of this network (or a runtime that left without closing: its lease lapses within ${Math.ceil(leaseMs / 1000)} s)`;
  return `agent ${agentId} already has an active attachment (one runtime per agent), held by ${who}; close it first`;
}
