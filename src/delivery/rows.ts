// What the delivery feature keeps per agent, as rows of the store's key/value table (kv/table.ts),
// which every instance on one store reads and writes: so an agent's delivery answer is the same
// from any instance on Postgres. Pure: the row shapes, their keys and codecs; no I/O here.

import type { AttachedBy, HandedWake } from '../network/delivery.js';

/** One wake handed over and not acknowledged yet (deleted by the ACK that covers it). */
export const WAKE = 'delivery.wake';
/** The agent's last acknowledgement (an attachment ACK, or an MCP wait taking its messages). */
export const ACK = 'delivery.ack';
/** The agent's last history read. */
export const READ = 'delivery.read';
/** What holds the agent's attachment, one row per kind of holder, expiring unless renewed. */
export const ATTACH = 'delivery.attach';

export const ATTACHED_BY: readonly AttachedBy[] = ['runtime', 'agent_run', 'mcp', 'mcp_wait'];

export interface WakeRow extends HandedWake {
  agent_id: string;
  /** When it was first handed over (ISO 8601): how long it has waited for an ACK. */
  first_offered_at: string;
  last_offered_at: string;
  /** Times it was sent, over every attachment of the agent. */
  offers: number;
  /** When redelivery gave up on it (it stays until acknowledged). */
  gave_up_at?: string;
}

export interface AttachRow {
  by: AttachedBy;
  /** The runtime's User-Agent, cut short. */
  client?: string;
  since: string;
}

export interface AtRow {
  at: string;
}

/** A wake row's id: the agent and the message (a message wakes an agent once). */
export const wakeId = (agentId: string, messageId: string): string => `${agentId}/${messageId}`;

/** An attach row's id. */
export const attachId = (agentId: string, by: AttachedBy): string => `${agentId}/${by}`;

/** A stored value, or undefined when it is not the JSON object it should be (never thrown at a caller). */
export function parsed<T>(value: string | undefined): T | undefined {
  if (value === undefined) return undefined;
  try {
    const v = JSON.parse(value) as unknown;
    return v !== null && typeof v === 'object' ? (v as T) : undefined;
  } catch {
    return undefined;
  }
}
