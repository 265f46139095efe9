// Delivery as an operator sees it (#42 part 4), as the rest of the server reaches it: through what
// the delivery feature registers (src/delivery/feature.ts puts a `Deliveries` in the network's
// extensions). The attachment tells it which wakes it handed over, offered again, gave up on and
// had acknowledged (history reads and MCP waits reach the feature through network/reached.ts).
// Without the feature `ctx.extensions.delivery` is absent and nothing is recorded. How it is
// stored is the feature's own.

import { DELIVERY_DEFAULTS, type Config, type DeliveryConfig } from '../config/types.js';
import type { AttachedBy } from '../protocol/delivery.js';
import type { Target } from '../protocol/types.js';

export type { AttachedBy };

/** A wake as the attachment handed it over: the message that names the agent, at event `seq`. */
export interface HandedWake {
  message_id: string;
  seq: number;
  reason: 'mention' | 'dm';
  target: Target;
}

/**
 * How long an attachment's record lasts past its last renewal: an instance killed without closing
 * its attachments shows them this long at most (network/delivery.ts's users renew it on heartbeats).
 */
export const ATTACH_RECORD_TTL_MS = 180_000;

/** What the delivery feature offers the rest of the server. Every call records in the background. */
export interface Deliveries {
  /**
   * The agent's attachment became ready here (renewed while it lasts: `renew`), delivering after
   * `startCursor`: wakes at or before it are ones the runtime says it has processed.
   */
  attached(agentId: string, by: AttachedBy, client: string | undefined, ttlMs: number, startCursor?: number): void;
  /** A heartbeat of an attachment ready `since` (epoch ms): keeps its record alive (written at most every so often). */
  renew(agentId: string, by: AttachedBy, client: string | undefined, since: number, ttlMs: number): void;
  /** The attachment ended. */
  detached(agentId: string, by: AttachedBy): void;
  /** A wake was sent to the runtime (`offers` times so far on this attachment). */
  offered(agentId: string, w: HandedWake, offers: number): void;
  /** The runtime acknowledged these wakes (maybe none: the ACK time is still noted). */
  acked(agentId: string, wakes: readonly HandedWake[]): void;
  /** The wake was offered the most times allowed and never acknowledged: it is reported, kept visible. */
  gaveUp(agentId: string, w: HandedWake, offers: number): void;
}

/** Who holds an attachment, from the runtime's User-Agent (svc's own clients name themselves). */
export function attachedByOf(client: string | undefined): AttachedBy {
  if (client?.startsWith('svc-agent-run/')) return 'agent_run';
  if (client?.startsWith('svc-mcp/')) return 'mcp';
  return 'runtime';
}

/** server.delivery with its defaults filled (a config built without the loader has none). */
export const deliverySettings = (c: Config): DeliveryConfig => ({ ...DELIVERY_DEFAULTS, ...c.server.delivery });
