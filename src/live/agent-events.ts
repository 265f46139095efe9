// Presence and wake events (AgentEvent payloads). Lifecycle reasons and error details appear only
// with server.debug_events: they may expose infrastructure details to every stream reader.

import { fqid } from '../protocol/ids.js';
import type { AgentEvent, EventType, ServiceEvent, Target } from '../protocol/types.js';
import { newEvent, type NetworkContext } from '../network/context.js';

/** the spec's lifecycle reason values for agent.connected / agent.disconnected. */
export type LifecycleReason =
  | 'attachment_ready'
  | 'client_closed'
  | 'client_going_away'
  | 'client_error'
  | 'read_timeout'
  | 'read_error'
  | 'heartbeat_write_failed'
  | 'event_write_failed'
  | 'event_stream_closed'
  | 'request_context_done';

export interface AttachedAgent {
  id: string;
  name?: string;
}

/** A targeted wake: a message that names the agent (mention) or reaches it in a DM. */
export interface Wake {
  message_id: string;
  reason: 'mention' | 'dm';
  target: Target;
}

function agentPayload(ctx: NetworkContext, a: AttachedAgent, extra: Partial<AgentEvent>): AgentEvent {
  const net = ctx.config.network.id;
  return { agent_id: a.id, network_id: net, fqid: fqid(net, 'agents', a.id), ...(a.name ? { name: a.name } : {}), ...extra };
}

/** agent.connected or agent.disconnected, with the reason and detail only in debug mode. */
export function presenceEvent(
  ctx: NetworkContext,
  type: 'agent.connected' | 'agent.disconnected',
  a: AttachedAgent,
  reason: LifecycleReason,
  detail?: string,
): ServiceEvent {
  const debug = ctx.config.server.debug_events;
  const extra: Partial<AgentEvent> = debug ? { reason, ...(detail ? { error: detail } : {}) } : {};
  return newEvent(ctx, type, { agent: agentPayload(ctx, a, extra) });
}

/** agent.wake.delivered or agent.wake.failed (with its error). */
export function wakeEvent(
  ctx: NetworkContext,
  type: Extract<EventType, 'agent.wake.delivered' | 'agent.wake.failed'>,
  a: AttachedAgent,
  w: Wake,
  error?: string,
): ServiceEvent {
  return newEvent(ctx, type, {
    agent: agentPayload(ctx, a, { message_id: w.message_id, reason: w.reason, target: w.target, ...(error ? { error } : {}) }),
  });
}

const SCHEME = 'svc://';
const AGENTS = '/agents/';

/** Whether `s` is the agent's FQID (ids.ts `fqid`: `svc://<net>/agents/<id>`), read in place: no string is built per attachment or delivery. */
function isFqidOf(s: string, net: string, id: string): boolean {
  const at = SCHEME.length + net.length;
  return (
    s.length === at + AGENTS.length + id.length &&
    s.startsWith(SCHEME) &&
    s.startsWith(net, SCHEME.length) &&
    s.startsWith(AGENTS, at) &&
    s.endsWith(id)
  );
}

/** Whether `s` is the agent's scoped id, `<net>:<id>` (a DM participant id), read in place. */
function isScopedOf(s: string, net: string, id: string): boolean {
  return s.length === net.length + 1 + id.length && s.startsWith(net) && s.charCodeAt(net.length) === 58 && s.endsWith(id);
}

/** Whether some name in `list` is the agent's, by `is` (isFqidOf or isScopedOf). */
function anyOf(list: readonly string[] | undefined, is: typeof isFqidOf, net: string, id: string): boolean {
  if (list) for (const s of list) if (is(s, net, id)) return true;
  return false;
}

/** The wake an event is for this agent, if any. Passive room traffic and the agent's own messages wake nobody. */
export function wakeOf(e: ServiceEvent, net: string, id: string): Wake | undefined {
  const m = e.message;
  if (!m || (e.type !== 'message.created' && e.type !== 'message.edited')) return undefined;
  if (m.from.id === id && m.from.network_id === net && m.from.type === 'agent') return undefined;
  // An edit wakes only the agents no earlier version mentioned: each is woken once per message.
  if (e.type === 'message.edited')
    return anyOf(e.mentions_added, isFqidOf, net, id) ? { message_id: m.id, reason: 'mention', target: m.target } : undefined;
  if (m.target.kind === 'dm' && anyOf(m.target.participant_ids, isScopedOf, net, id))
    return { message_id: m.id, reason: 'dm', target: m.target };
  if (anyOf(m.mentions, isFqidOf, net, id)) return { message_id: m.id, reason: 'mention', target: m.target };
  return undefined;
}
