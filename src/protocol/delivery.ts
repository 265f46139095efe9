// GET /v1/agents/{id}/delivery (#42 part 4): one agent's delivery as an operator sees it. The
// server builds it (src/delivery/), the typed client and `svc agents status` read it.

import type { Target } from './types.js';

/** What holds an agent's attachment: a runtime over WebSocket, `svc agent run`, `svc mcp`, or a wait on /v1/mcp. */
export type AttachedBy = 'runtime' | 'agent_run' | 'mcp' | 'mcp_wait';

/** One wake handed over and not acknowledged. */
export interface WakeView {
  message_id: string;
  reason: 'mention' | 'dm';
  target: Target;
  /** The wake's event cursor (what a runtime ACKs, and dedupes a re-sent EVENT by). */
  cursor: string;
  first_offered_at: string;
  last_offered_at: string;
  /** Times it was sent, over every attachment of the agent. */
  offers: number;
  /** Present once redelivery gave up on it (server.delivery.max_offers); it stays until acknowledged. */
  gave_up_at?: string;
}

export interface DeliveryStatus {
  agent_id: string;
  /** Whether anything holds the agent's attachment (or an MCP wait is open). */
  attached: boolean;
  attachments: { by: AttachedBy; client?: string; since: string }[];
  /** Wakes handed over and not acknowledged. */
  pending_wakes: number;
  /** When the oldest of them was first handed over; null when none. */
  oldest_pending_at: string | null;
  /** Its age in whole seconds at the time of the answer; null when none. */
  oldest_pending_seconds: number | null;
  /** Wakes redelivery gave up on (still pending: a late ACK clears them). */
  gave_up: number;
  last_ack_at: string | null;
  last_read_at: string | null;
  /** The oldest pending wakes (at most 100). */
  wakes: WakeView[];
}
