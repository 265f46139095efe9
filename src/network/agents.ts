// Agents: registration (first claim wins), summaries, soft removal.

import { AppError, conflict, forbidden, notFound } from '../errors.js';
import { ANONYMOUS_CREDENTIAL, mintAgentToken } from '../auth/credentials.js';
import type { Principal } from '../auth/principal.js';
import { canSeeAgent, canSeeRoom, viewerOf } from '../auth/visibility.js';
import { fqid, isId, newId } from '../protocol/ids.js';
import { paginate, pageOf, type Window } from '../protocol/pagination.js';
import type { AgentRegistration, AgentSummary, Page, RemovedResponse } from '../protocol/types.js';
import type { AgentRecord, WriteOp } from '../store/types.js';
import { commit, newEvent, now, type NetworkContext } from './context.js';
import { membershipOps } from './rooms.js';
import { agentView } from './views.js';

export function registrationView(net: string, a: AgentRecord, token?: string): AgentRegistration {
  return {
    network_id: net,
    agent_id: a.id,
    actor_uid: a.actor_uid,
    actor_uri: fqid(net, 'agents', a.id),
    display_name: a.name ?? a.id,
    ...(token ? { agent_token: token } : {}),
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}

/** A readable handle from a display name: `Research Bot` -> `research-bot`, then `-2`, `-3`... */
export function handleFrom(name: string | undefined, taken: (id: string) => boolean): string {
  const base =
    (name ?? '')
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+|[-._]+$/g, '')
      .slice(0, 48) || 'agent';
  if (!taken(base)) return base;
  for (let n = 2; n < 10_000; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
  return `${base}-${newId('x').slice(-8)}`;
}

/** Whether the principal may make a *new* claim on `id` (an unused id). Returns the refusal. */
function claimRefusal(ctx: NetworkContext, p: Principal, id: string): AppError | undefined {
  const mode = ctx.config.auth.agent_registration;
  switch (p.kind) {
    case 'trusted':
      return undefined;
    case 'agent':
      return forbidden('an agent token acts only as its own agent');
    case 'anonymous':
      return mode === 'open' ? undefined : forbidden('anonymous agent registration is not open on this network');
    case 'static':
      if (p.agents && !p.agents.has(id)) return forbidden(`this token may not assert agent ${id} (not in its agents allowlist)`);
      if (p.scopes.has('admin') || p.agents?.has(id)) return undefined;
      if (mode === 'disabled') return forbidden('agent registration is disabled (auth.agent_registration); ask an operator');
      return p.scopes.has('attach') ? undefined : forbidden('registering agents needs the attach or admin scope');
  }
}

export interface Registered {
  registration: AgentRegistration;
  record: AgentRecord;
  created: boolean;
}

/**
 * Registers or resolves an agent against the caller's credential (HTTP register and IDENTIFY).
 * Same credential: idempotent. Different credential: 409. New anonymous claim: a token, once.
 */
export async function registerAgent(ctx: NetworkContext, p: Principal, req: { requested_agent_id?: string; name?: string }): Promise<Registered> {
  const net = ctx.config.network.id;
  const id = req.requested_agent_id ?? handleFrom(req.name, (x) => ctx.store.getAgent(x) !== undefined);
  if (!isId(id)) throw new AppError('bad_request', 'body.requested_agent_id: must be an id: letters, digits, . _ - (max 64), starting with a letter or digit');
  const existing = ctx.store.getAgent(id);
  if (existing) {
    if (p.kind === 'agent' && p.agentId !== id) throw forbidden('an agent token acts only as its own agent');
    if (p.kind === 'static' && p.agents && !p.agents.has(id)) throw forbidden(`this token may not assert agent ${id} (not in its agents allowlist)`);
    if (p.kind === 'anonymous' || existing.credential_key !== p.credentialKey) {
      throw conflict(`agent id ${id} is already registered to another credential`);
    }
    await ctx.store.sync();
    return { registration: registrationView(net, existing), record: existing, created: false };
  }
  const refusal = claimRefusal(ctx, p, id);
  if (refusal) throw refusal;
  const minted = p.kind === 'anonymous' ? mintAgentToken() : undefined;
  const t = now();
  const record: AgentRecord = {
    id,
    ...(req.name ? { name: req.name } : {}),
    actor_uid: newId('act'),
    credential_key: minted?.credential_key ?? (p.kind === 'anonymous' ? ANONYMOUS_CREDENTIAL : p.credentialKey),
    created_at: t,
    updated_at: t,
  };
  await commit(ctx, [{ op: 'agent.put', agent: record }]);
  return { registration: registrationView(net, record, minted?.token), record, created: true };
}

export function listAgents(ctx: NetworkContext, p: Principal, w: Window): { agents: AgentSummary[]; page: Page } {
  const net = ctx.config.network.id;
  const v = viewerOf(p);
  const rooms = ctx.store.listRooms().filter((r) => canSeeRoom(v, r, net));
  const visible = ctx.store.listAgents().filter((a) => canSeeAgent(v, a.id, rooms, net));
  const s = paginate(visible, (a) => a.id, w);
  return { agents: s.items.map((a) => agentView(net, a, rooms)), page: pageOf(s, (a) => a.id) };
}

export function getAgent(ctx: NetworkContext, p: Principal, id: string): AgentSummary {
  const net = ctx.config.network.id;
  const v = viewerOf(p);
  const a = ctx.store.getAgent(id);
  const rooms = ctx.store.listRooms().filter((r) => canSeeRoom(v, r, net));
  if (!a || !canSeeAgent(v, id, rooms, net)) throw notFound(`agent ${id}`);
  return agentView(net, a, rooms);
}

/** Deletes the registration (its token stops working) and takes the agent out of every room. */
export async function removeAgent(ctx: NetworkContext, id: string): Promise<RemovedResponse> {
  const agent = ctx.store.getAgent(id);
  const ops: WriteOp[] = [];
  for (const room of ctx.store.listRooms()) {
    if (room.members.includes(id)) ops.push(...membershipOps(ctx, room, [], [id]).ops);
  }
  if (!agent && ops.length === 0) throw notFound(`agent ${id}`);
  if (agent) ops.unshift({ op: 'agent.delete', id });
  const net = ctx.config.network.id;
  ops.push({ op: 'event.append', event: newEvent(ctx, 'agent.removed', { agent_id: id, agent: { agent_id: id, network_id: net, fqid: fqid(net, 'agents', id), ...(agent?.name ? { name: agent.name } : {}) } }) });
  await commit(ctx, ops);
  return { removed: true, kind: 'agent', id, mode: 'soft' };
}
