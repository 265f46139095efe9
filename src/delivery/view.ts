// The delivery answer of one agent and the operator warning, from its stored rows (rows.ts). Pure.

import type { DeliveryStatus } from '../protocol/delivery.js';
import type { Warning } from '../protocol/types.js';
import { WARNING_DOCS } from '../network/operator-warnings.js';
import type { AtRow, AttachRow, WakeRow } from './rows.js';

/** Wakes listed in one answer at most (the oldest); `pending_wakes` counts them all. */
export const WAKES_SHOWN = 100;

export interface AgentRows {
  wakes: readonly WakeRow[];
  attachments: readonly AttachRow[];
  ack?: AtRow;
  read?: AtRow;
}

const byFirstOffered = (a: WakeRow, b: WakeRow) => a.first_offered_at.localeCompare(b.first_offered_at) || a.seq - b.seq;

/** The answer for one agent as of `nowMs`. */
export function deliveryStatus(agentId: string, rows: AgentRows, nowMs: number): DeliveryStatus {
  const wakes = [...rows.wakes].sort(byFirstOffered);
  const oldest = wakes[0];
  return {
    agent_id: agentId,
    attached: rows.attachments.length > 0,
    attachments: rows.attachments.map((a) => ({ by: a.by, ...(a.client ? { client: a.client } : {}), since: a.since })),
    pending_wakes: wakes.length,
    oldest_pending_at: oldest ? oldest.first_offered_at : null,
    oldest_pending_seconds: oldest ? ageSeconds(oldest.first_offered_at, nowMs) : null,
    gave_up: wakes.filter((w) => w.gave_up_at !== undefined).length,
    last_ack_at: rows.ack?.at ?? null,
    last_read_at: rows.read?.at ?? null,
    wakes: wakes.slice(0, WAKES_SHOWN).map((w) => ({
      message_id: w.message_id,
      reason: w.reason,
      target: w.target,
      cursor: String(w.seq),
      first_offered_at: w.first_offered_at,
      last_offered_at: w.last_offered_at,
      offers: w.offers,
      ...(w.gave_up_at !== undefined ? { gave_up_at: w.gave_up_at } : {}),
    })),
  };
}

/** Whole seconds from `iso` to `nowMs` (0 when in the future: another instance's clock). */
export function ageSeconds(iso: string, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
}

/** One agent's pending wakes, summed up (the warning and the metrics). */
export interface Waiting {
  agent_id: string;
  pending: number;
  oldest_at: string;
  gave_up: number;
}

/** Every agent with pending wakes, the longest waiting first. */
export function waitingAgents(rows: readonly WakeRow[]): Waiting[] {
  const per = new Map<string, Waiting>();
  for (const r of rows) {
    const w = per.get(r.agent_id);
    const gave = r.gave_up_at !== undefined ? 1 : 0;
    if (!w) per.set(r.agent_id, { agent_id: r.agent_id, pending: 1, oldest_at: r.first_offered_at, gave_up: gave });
    else {
      w.pending++;
      w.gave_up += gave;
      if (r.first_offered_at < w.oldest_at) w.oldest_at = r.first_offered_at;
    }
  }
  return [...per.values()].sort((a, b) => a.oldest_at.localeCompare(b.oldest_at) || a.agent_id.localeCompare(b.agent_id));
}

/** Agents named in the warning at most; the rest are counted. */
export const WARNING_AGENTS = 10;

/** agent_wakes_waiting: agents whose oldest unacknowledged wake is older than `warnAfterMs`. */
export function waitingWarning(waiting: readonly Waiting[], warnAfterMs: number, nowMs: number): Warning[] {
  const late = waiting.filter((w) => nowMs - Date.parse(w.oldest_at) > warnAfterMs);
  if (late.length === 0) return [];
  const named = late.slice(0, WARNING_AGENTS).map((w) => {
    const gave = w.gave_up > 0 ? `, ${w.gave_up} no longer offered after the last redelivery` : '';
    return `${w.agent_id} (${w.pending} waiting, the oldest for ${ageSeconds(w.oldest_at, nowMs)} s${gave})`;
  });
  const more = late.length > WARNING_AGENTS ? ` and ${late.length - WARNING_AGENTS} more` : '';
  return [
    {
      severity: 'warning',
      code: 'agent_wakes_waiting',
      message: `wakes handed to agents and not acknowledged for more than ${Math.round(warnAfterMs / 1000)} s: ${named.join('; ')}${more}`,
      action: "check each agent's runtime (svc agents status ID): it receives wakes but does not acknowledge them",
      docs_url: `${WARNING_DOCS}#agent_wakes_waiting`,
    },
  ];
}
