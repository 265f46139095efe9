// Agents: registration (first claim wins), summaries, soft removal.

import { AppError, conflict, forbidden, notFound } from '../errors.js';
import { existingClaimRefusal, keepsOffReserved, newClaimRefusal, reservedClaimRefusal, type ClaimRefusal } from '../auth/agent-claims.js';
import { ANONYMOUS_CREDENTIAL, mintAgentToken } from '../auth/credentials.js';
import type { Principal } from '../auth/principal.js';
import { canSeeListedAgent, canSeeRoom, roomsOfLocalAgents, viewerOf } from '../auth/visibility.js';
import { fqid, isId, newId } from '../protocol/ids.js';
import { paginate, pageOf, type Window } from '../protocol/pagination.js';
import type { AgentRegistration, AgentSummary, Page, RemovedResponse } from '../protocol/types.js';
import { StoreError, type AgentRecord } from '../store/types.js';
import { commit, newEvent, now, type NetworkContext } from './context.js';
import { reservedAgents, reservedAs } from './reserved-agents.js';
import { membersEvent, storeRefusal } from './rooms.js';
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

export interface Registered {
  registration: AgentRegistration;
  record: AgentRecord;
  created: boolean;
}

/**
 * Registers or resolves an agent against the caller's credential (HTTP register and IDENTIFY).
 * Same credential: idempotent. Different credential: 409. New anonymous claim: a token, once.
 */
export async function registerAgent(
  ctx: NetworkContext,
  p: Principal,
  req: { requested_agent_id?: string; name?: string },
): Promise<Registered> {
  const net = ctx.config.network.id;
  // A self-registration keeps off the ids svc.yaml or an operator named (auth/agent-claims.ts).
  // A handle made from a name steps over all of them (every room read); a given id looks up only
  // its own rooms, and only for a claim that would otherwise succeed.
  const keepOff = keepsOffReserved(p);
  let reserved: Map<string, string> | undefined;
  let id = req.requested_agent_id;
  if (id === undefined) {
    if (keepOff) reserved = await reservedAgents(ctx);
    const taken = new Set((await ctx.store.listAgents()).map((a) => a.id));
    id = handleFrom(req.name, (x) => taken.has(x) || reserved?.has(x) === true);
  }
  if (!isId(id))
    throw new AppError(
      'bad_request',
      'body.requested_agent_id: must be an id: letters, digits, . _ - (max 64), starting with a letter or digit',
    );
  const existing = await ctx.store.getAgent(id);
  if (existing) return resolveExisting(ctx, p, existing);
  const refusal = newClaimRefusal(p, id, ctx.config.auth.agent_registration);
  if (refusal) throw refused(refusal);
  const namedAs = keepOff ? (reserved ? reserved.get(id) : await reservedAs(ctx, id)) : undefined;
  if (namedAs !== undefined) throw refused(reservedClaimRefusal(id, namedAs));
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
  let outcome;
  try {
    outcome = (await commit(ctx, [{ op: 'agent.claim', agent: record }])).outcomes[0]!;
  } catch (err) {
    // Another credential claimed the id between the read and the write.
    if (err instanceof StoreError && err.code === 'agent_taken') {
      const winner = await ctx.store.getAgent(id);
      if (winner) return resolveExisting(ctx, p, winner);
      throw conflict(err.message);
    }
    throw err;
  }
  if (outcome.op !== 'agent.claim') throw new Error('unexpected outcome');
  if (!outcome.created) return { registration: registrationView(net, outcome.agent), record: outcome.agent, created: false };
  await joinOnRegister(ctx, id);
  return { registration: registrationView(net, record, minted?.token), record, created: true };
}

/**
 * A new agent joins the rooms declared `join_on_register` (svc init's general), so a mention of it
 * there resolves and wakes it. Once, at its first registration: an operator who removes it later
 * is not undone. A room removed meanwhile is skipped; the registration stands either way.
 */
async function joinOnRegister(ctx: NetworkContext, id: string): Promise<void> {
  for (const room of ctx.config.rooms) {
    if (!room.join_on_register) continue;
    try {
      await commit(ctx, [{ op: 'room.members.change', room_id: room.id, add: [id], remove: [], at: now(), event: membersEvent(ctx) }]);
    } catch (err) {
      // The claim is stored and its token is answered only now: a failed join must not lose it.
      if (!(err instanceof StoreError && err.code === 'not_found'))
        ctx.log('warn', 'join_on_register: the new agent did not join the room', {
          agent: id,
          room: room.id,
          error: (err as Error).message,
        });
    }
  }
}

/** Same credential: idempotent (once durable). Otherwise the refusal auth/ decides. */
async function resolveExisting(ctx: NetworkContext, p: Principal, existing: AgentRecord): Promise<Registered> {
  const refusal = existingClaimRefusal(p, existing.id, existing.credential_key);
  if (refusal) throw refused(refusal);
  await ctx.store.sync();
  return { registration: registrationView(ctx.config.network.id, existing), record: existing, created: false };
}

const refused = (r: ClaimRefusal): AppError =>
  r.code ? new AppError(r.code, r.reason) : r.status === 409 ? conflict(r.reason) : forbidden(r.reason);

export async function listAgents(ctx: NetworkContext, p: Principal, w: Window): Promise<{ agents: AgentSummary[]; page: Page }> {
  const net = ctx.config.network.id;
  const v = viewerOf(p);
  const local = roomsOfLocalAgents(
    (await ctx.store.listRooms()).filter((r) => canSeeRoom(v, r, net)),
    net,
  );
  const visible = (await ctx.store.listAgents()).filter((a) => canSeeListedAgent(v, a.id, local));
  const s = paginate(visible, (a) => a.id, w);
  return { agents: s.items.map((a) => agentView(net, a, local.get(a.id) ?? [])), page: pageOf(s, (a) => a.id) };
}

export async function getAgent(ctx: NetworkContext, p: Principal, id: string): Promise<AgentSummary> {
  const net = ctx.config.network.id;
  const v = viewerOf(p);
  const a = await ctx.store.getAgent(id);
  const local = roomsOfLocalAgents(
    (await ctx.store.listRooms()).filter((r) => canSeeRoom(v, r, net)),
    net,
  );
  if (!a || !canSeeListedAgent(v, id, local)) throw notFound(`agent ${id}`);
  return agentView(net, a, local.get(id) ?? []);
}

/** Deletes the registration (its token stops working) and takes the agent out of every room. */
export async function removeAgent(ctx: NetworkContext, id: string): Promise<RemovedResponse> {
  const net = ctx.config.network.id;
  await commit(ctx, [
    {
      op: 'agent.remove',
      id,
      at: now(),
      events: {
        members: membersEvent(ctx),
        removed: (agent) =>
          newEvent(ctx, 'agent.removed', {
            agent_id: id,
            agent: { agent_id: id, network_id: net, fqid: fqid(net, 'agents', id), ...(agent?.name ? { name: agent.name } : {}) },
          }),
      },
    },
  ]).catch(storeRefusal);
  return { removed: true, kind: 'agent', id, mode: 'soft' };
}
