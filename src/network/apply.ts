// POST /v1/apply and start-up reconciliation: declared rooms (and their members, visibility,
// write policy, federation) and static-token agent bindings. Never removes anything.

import { AppError, conflict } from '../errors.js';
import { fqid, newId } from '../protocol/ids.js';
import type { ApplyRequest, ApplyResponse, Visibility, WritePolicy } from '../protocol/types.js';
import type { AgentRecord, RoomRecord, WriteOp } from '../store/types.js';
import type { Config } from '../config/types.js';
import { commit, newEvent, now, type NetworkContext } from './context.js';
import { normalizeMembers } from './members.js';
import { roomCreateOps } from './rooms.js';
import { roomView } from './views.js';

export interface DeclaredRoom {
  id: string;
  name?: string;
  members?: string[];
  visibility?: Visibility;
  write_policy?: WritePolicy;
  /** undefined: leave federation as it is (HTTP apply carries none). */
  federation_pairings?: string[];
}

type Change = NonNullable<ApplyResponse['changes']>[number];

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * How declarations meet runtime changes. `request` (POST /v1/apply, `svc apply`): the declaration is
 * exact, members are set as declared and a soft-removed room is revived. `config` (start-up and
 * reload of svc.yaml): operator actions stand, so declared members are added but never removed, and
 * a room an admin removed stays removed until created or applied again.
 */
export type ApplyMode = 'request' | 'config';

function roomOps(ctx: NetworkContext, d: DeclaredRoom, changes: Change[], at: string, mode: ApplyMode): WriteOp[] {
  const net = ctx.config.network.id;
  // Checked here so a bad member is reported at its place in the request (`body.rooms[1].members[0]`).
  const members = d.members ? normalizeMembers(net, d.members, `${at}.members`) : undefined;
  const existing = ctx.store.getRoom(d.id);
  if (existing?.removed_at && mode === 'config') {
    changes.push({ kind: 'room', id: d.id, action: 'unchanged' });
    return [];
  }
  if (!existing || existing.removed_at) {
    changes.push({ kind: 'room', id: d.id, action: 'created' });
    return roomCreateOps(ctx, d, existing).ops;
  }
  const next: RoomRecord = {
    ...existing,
    name: d.name ?? existing.name,
    members: !members ? existing.members : mode === 'request' ? members : [...existing.members, ...members.filter((m) => !existing.members.includes(m))],
    visibility: d.visibility ?? existing.visibility,
    write_policy: d.write_policy ?? existing.write_policy,
    federation_pairings: d.federation_pairings ?? existing.federation_pairings,
  };
  const changed =
    next.name !== existing.name ||
    !sameList(next.members, existing.members) ||
    next.visibility !== existing.visibility ||
    next.write_policy !== existing.write_policy ||
    !sameList(next.federation_pairings, existing.federation_pairings);
  if (!changed) {
    changes.push({ kind: 'room', id: d.id, action: 'unchanged' });
    return [];
  }
  changes.push({ kind: 'room', id: d.id, action: 'updated' });
  next.updated_at = now();
  const ops: WriteOp[] = [{ op: 'room.put', room: next }];
  if (!sameList(next.members, existing.members)) {
    ops.push({
      op: 'event.append',
      event: newEvent(ctx, 'room.members.updated', {
        room: roomView(net, next),
        added: next.members.filter((m) => !existing.members.includes(m)),
        removed: existing.members.filter((m) => !next.members.includes(m)),
      }),
    });
  }
  return ops;
}

/** Binds agent ids to static-token credentials. A binding owned by another credential conflicts. */
function agentOps(ctx: NetworkContext, bindings: ApplyRequest['agents'], changes: Change[], strict: boolean, root: string): WriteOp[] {
  const ops: WriteOp[] = [];
  const tokenIds = new Set(ctx.config.auth.tokens.map((t) => t.id));
  const firstBinding = new Map<string, number>();
  for (const [i, b] of bindings.entries()) {
    const j = firstBinding.get(b.id);
    if (j !== undefined && bindings[j]!.credential_key !== b.credential_key) {
      throw new AppError('unprocessable_entity', `${root}agents[${j}] and ${root}agents[${i}] both name agent ${b.id} with different credentials (${bindings[j]!.credential_key}, ${b.credential_key}): an agent belongs to one credential`);
    }
    if (j === undefined) firstBinding.set(b.id, i);
  }
  for (const [i, b] of bindings.entries()) {
    if (!/^token:/.test(b.credential_key) || !tokenIds.has(b.credential_key.slice(6))) {
      throw new AppError('unprocessable_entity', `${root}agents[${i}].credential_key: ${b.credential_key} names no static token of this server (want token:<auth.tokens[].id>)`);
    }
    const existing = ctx.store.getAgent(b.id);
    if (existing) {
      if (existing.credential_key === b.credential_key) changes.push({ kind: 'agent', id: b.id, action: 'unchanged' });
      else if (strict) throw conflict(`agent ${b.id} is registered to another credential; remove it first to rebind`);
      else ctx.log('warn', 'declared agent binding skipped: id registered to another credential', { agent: b.id });
      continue;
    }
    const t = now();
    const record: AgentRecord = { id: b.id, actor_uid: newId('act'), credential_key: b.credential_key, created_at: t, updated_at: t };
    ops.push({ op: 'agent.put', agent: record });
    changes.push({ kind: 'agent', id: b.id, action: 'created' });
  }
  return ops;
}

/** `root` prefixes error paths: `body.` for a request. */
export async function applyDeclared(ctx: NetworkContext, req: { agents: ApplyRequest['agents']; rooms: DeclaredRoom[] }, mode: ApplyMode, root = ''): Promise<ApplyResponse> {
  const net = ctx.config.network.id;
  const changes: Change[] = [];
  const ops = [...agentOps(ctx, req.agents, changes, mode === 'request', root), ...req.rooms.flatMap((r, i) => roomOps(ctx, r, changes, `${root}rooms[${i}]`, mode))];
  if (ops.length > 0) await commit(ctx, ops);
  const agents = req.agents
    .map((b) => ctx.store.getAgent(b.id))
    .filter((a): a is AgentRecord => a !== undefined)
    .map((a) => ({ network_id: net, agent_id: a.id, actor_uid: a.actor_uid, actor_uri: fqid(net, 'agents', a.id) }));
  const rooms = req.rooms
    .map((r) => ctx.store.getRoom(r.id)!)
    .map((r) => {
      const v = roomView(net, r);
      return { id: v.id, network_id: net, fqid: v.fqid, name: v.name, members: v.members, visibility: v.visibility, write_policy: v.write_policy };
    });
  return { applied: true, agents, rooms, changes };
}

export async function applyRequest(ctx: NetworkContext, req: ApplyRequest): Promise<ApplyResponse> {
  if (req.network_id !== ctx.config.network.id) {
    throw new AppError('unprocessable_entity', `body.network_id: ${req.network_id} is not this network (${ctx.config.network.id})`);
  }
  return applyDeclared(ctx, req, 'request', 'body.');
}

/** What a config file declares: its rooms and its tokens' agent allowlists as bindings. */
export function declaredFromConfig(c: Config): { agents: ApplyRequest['agents']; rooms: DeclaredRoom[] } {
  return {
    // One binding per agent id: the first token that lists it owns it.
    agents: c.auth.tokens
      .flatMap((t) => (t.agents ?? []).map((id) => ({ id, credential_key: `token:${t.id}` })))
      .filter((b, i, all) => all.findIndex((x) => x.id === b.id) === i),
    rooms: c.rooms.map((r) => ({
      id: r.id,
      ...(r.name !== undefined ? { name: r.name } : {}),
      ...(r.members !== undefined ? { members: r.members } : {}),
      ...(r.visibility !== undefined ? { visibility: r.visibility } : {}),
      ...(r.write_policy !== undefined ? { write_policy: r.write_policy } : {}),
      federation_pairings: r.federation?.pairings ?? [],
    })),
  };
}
