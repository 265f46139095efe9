// POST /v1/apply and start-up reconciliation: declared rooms (and their members, visibility,
// write policy, federation) and static-token agent bindings. Never removes anything.

import { AppError, conflict } from '../errors.js';
import { fqid, newId } from '../protocol/ids.js';
import type { ApplyRequest, ApplyResponse, RoomDeclaration } from '../protocol/types.js';
import { StoreError, type AgentRecord, type OpOutcome, type RoomDeclareOp, type WriteOp } from '../store/types.js';
import type { Config } from '../config/types.js';
import { commit, newEvent, now, type NetworkContext } from './context.js';
import { normalizeMembers } from './members.js';
import { overriddenText, undoneByReload } from './declared-rooms.js';
import { membersEvent } from './rooms.js';
import { roomView } from './views.js';

export interface DeclaredRoom extends RoomDeclaration {
  /** undefined: leave federation as it is (HTTP apply carries none). */
  federation_pairings?: string[];
}

type Change = NonNullable<ApplyResponse['changes']>[number];

/**
 * How declarations meet runtime changes. `request` (POST /v1/apply, `svc apply`): the declaration is
 * exact, members are set as declared and a soft-removed room is revived. `config` (start-up and
 * reload of svc.yaml): operator actions stand, so declared members are added but never removed, and
 * a room an admin removed stays removed until created or applied again.
 */
export type ApplyMode = 'request' | 'config';

/** The declaration of one room as an intent; the store compares it with the room it holds. */
function roomOp(ctx: NetworkContext, d: DeclaredRoom, at: string, mode: ApplyMode): RoomDeclareOp {
  const net = ctx.config.network.id;
  // Checked here so a bad member is reported at its place in the request (`body.rooms[1].members[0]`).
  const members = d.members ? normalizeMembers(net, d.members, `${at}.members`) : undefined;
  return {
    op: 'room.declare',
    room: {
      id: d.id,
      ...(d.name !== undefined ? { name: d.name } : {}),
      ...(members !== undefined ? { members } : {}),
      ...(d.visibility !== undefined ? { visibility: d.visibility } : {}),
      ...(d.write_policy !== undefined ? { write_policy: d.write_policy } : {}),
      ...(d.federation_pairings !== undefined ? { federation_pairings: d.federation_pairings } : {}),
      ...(d.retention !== undefined ? { retention: d.retention } : {}),
    },
    // A room agents join as they register has members no file lists: declaring it never removes them.
    members_mode: mode === 'request' && !d.join_on_register ? 'set' : 'add',
    keep_removed: mode === 'config',
    at: now(),
    events: { created: (room) => newEvent(ctx, 'room.created', { room: roomView(net, room) }), members: membersEvent(ctx) },
  };
}

/** Binds agent ids to static-token credentials. A binding owned by another credential conflicts. */
async function agentOps(ctx: NetworkContext, bindings: ApplyRequest['agents'], strict: boolean, root: string): Promise<WriteOp[]> {
  const ops: WriteOp[] = [];
  const tokenIds = new Set(ctx.config.auth.tokens.map((t) => t.id));
  const firstBinding = new Map<string, number>();
  for (const [i, b] of bindings.entries()) {
    const j = firstBinding.get(b.id);
    if (j !== undefined && bindings[j]!.credential_key !== b.credential_key) {
      throw new AppError(
        'unprocessable_entity',
        `${root}agents[${j}] and ${root}agents[${i}] both name agent ${b.id} with different credentials (${bindings[j]!.credential_key}, ${b.credential_key}): an agent belongs to one credential`,
      );
    }
    if (j === undefined) firstBinding.set(b.id, i);
  }
  for (const [i, b] of bindings.entries()) {
    if (!/^token:/.test(b.credential_key) || !tokenIds.has(b.credential_key.slice(6))) {
      throw new AppError(
        'unprocessable_entity',
        `${root}agents[${i}].credential_key: ${b.credential_key} names no static token of this server (want token:<auth.tokens[].id>)`,
      );
    }
    const existing = await ctx.store.getAgent(b.id);
    if (existing && existing.credential_key !== b.credential_key) {
      if (strict) throw conflict(`agent ${b.id} is registered to another credential; remove it first to rebind`);
      ctx.log('warn', 'declared agent binding skipped: id registered to another credential', { agent: b.id });
      continue;
    }
    const t = now();
    ops.push({
      op: 'agent.claim',
      agent: { id: b.id, actor_uid: newId('act'), credential_key: b.credential_key, created_at: t, updated_at: t },
    });
  }
  return ops;
}

/** `root` prefixes error paths: `body.` for a request. */
export async function applyDeclared(
  ctx: NetworkContext,
  req: { agents: ApplyRequest['agents']; rooms: DeclaredRoom[] },
  mode: ApplyMode,
  root = '',
): Promise<ApplyResponse> {
  const net = ctx.config.network.id;
  const ops = [
    ...(await agentOps(ctx, req.agents, mode === 'request', root)),
    ...req.rooms.map((r, i) => roomOp(ctx, r, `${root}rooms[${i}]`, mode)),
  ];
  let outcomes: OpOutcome[] = [];
  if (ops.length > 0) {
    try {
      outcomes = (await commit(ctx, ops)).outcomes;
    } catch (err) {
      // A binding claimed by another credential since it was read.
      if (err instanceof StoreError && err.code === 'agent_taken') throw conflict(`${err.message}; remove it first to rebind`);
      throw err;
    }
  }
  const changes: Change[] = [];
  for (const o of outcomes) {
    if (o.op === 'agent.claim') changes.push({ kind: 'agent', id: o.agent.id, action: o.created ? 'created' : 'unchanged' });
  }
  for (const o of outcomes) {
    if (o.op === 'room.declare') changes.push({ kind: 'room', id: o.room!.id, action: o.action });
  }
  const agents = (await Promise.all(req.agents.map((b) => ctx.store.getAgent(b.id))))
    .filter((a): a is AgentRecord => a !== undefined)
    .map((a) => ({ network_id: net, agent_id: a.id, actor_uid: a.actor_uid, actor_uri: fqid(net, 'agents', a.id) }));
  const rooms = (await Promise.all(req.rooms.map(async (r) => (await ctx.store.getRoom(r.id))!))).map((r) => {
    const v = roomView(net, r);
    return {
      id: v.id,
      network_id: net,
      fqid: v.fqid,
      name: v.name,
      members: v.members,
      visibility: v.visibility,
      write_policy: v.write_policy,
    };
  });
  return { applied: true, agents, rooms, changes };
}

export async function applyRequest(ctx: NetworkContext, req: ApplyRequest): Promise<ApplyResponse> {
  if (req.network_id !== ctx.config.network.id) {
    throw new AppError('unprocessable_entity', `body.network_id: ${req.network_id} is not this network (${ctx.config.network.id})`);
  }
  checkAgainstConfig(ctx, req);
  const parts = ctx.extensions.apply ?? [];
  // Every part's declarations are checked before anything is written: a bad one applies nothing.
  for (const part of parts) await part.check(req);
  const res = await applyDeclared(ctx, req, 'request', 'body.');
  for (const part of parts) res.changes!.push(...(await part.apply(req)));
  return res;
}

/** Refuses (409) a room declaration svc.yaml's next reload would undo; see declared-rooms.ts. */
function checkAgainstConfig(ctx: NetworkContext, req: ApplyRequest): void {
  req.rooms.forEach((d, i) => {
    // A malformed member is a 400 at its place, whichever room declares it.
    if (d.members) normalizeMembers(ctx.config.network.id, d.members, `body.rooms[${i}].members`);
    const file = ctx.config.rooms.find((r) => r.id === d.id);
    const first = file ? undoneByReload(ctx.config.network.id, file, d)[0] : undefined;
    if (first) {
      throw conflict(
        `body.rooms[${i}].${first.field}: ${overriddenText(d.id, first)}; change it in svc.yaml, or leave ${first.field} out of the apply`,
      );
    }
  });
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
      ...(r.join_on_register ? { join_on_register: true } : {}),
      ...(r.retention !== undefined ? { retention: r.retention } : {}),
      federation_pairings: r.federation?.pairings ?? [],
    })),
  };
}
