// Rooms: create, read, list, soft removal and membership.

import { conflict, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { canSeeRoom, viewerOf } from '../auth/visibility.js';
import { paginate, pageOf, type Window } from '../protocol/pagination.js';
import type { Page, RemovedResponse, Room, Visibility, WritePolicy } from '../protocol/types.js';
import type { RoomRecord, WriteOp } from '../store/types.js';
import { commit, newEvent, now, type NetworkContext } from './context.js';
import { visibleRoom } from './access.js';
import { normalizeMembers } from './members.js';
import { roomView } from './views.js';

export interface RoomInput {
  id: string;
  name?: string;
  members?: string[];
  visibility?: Visibility;
  write_policy?: WritePolicy;
  federation_pairings?: string[];
}

/** The op (and event) that creates a room or revives a soft-removed one. */
export function roomCreateOps(ctx: NetworkContext, input: RoomInput, existing?: RoomRecord): { record: RoomRecord; ops: WriteOp[] } {
  const net = ctx.config.network.id;
  const t = now();
  const record: RoomRecord = {
    id: input.id,
    name: input.name ?? existing?.name ?? input.id,
    members: normalizeMembers(net, input.members ?? [], 'body.members'),
    visibility: input.visibility ?? 'public',
    write_policy: input.write_policy ?? 'members',
    federation_pairings: input.federation_pairings ?? existing?.federation_pairings ?? [],
    created_at: existing?.created_at ?? t,
    updated_at: t,
  };
  return { record, ops: [{ op: 'room.put', room: record }, { op: 'event.append', event: newEvent(ctx, 'room.created', { room: roomView(net, record) }) }] };
}

export async function createRoom(ctx: NetworkContext, input: RoomInput): Promise<Room> {
  const existing = ctx.store.getRoom(input.id);
  if (existing && !existing.removed_at) throw conflict(`room ${input.id} already exists`);
  const { record, ops } = roomCreateOps(ctx, input, existing);
  await commit(ctx, ops);
  return roomView(ctx.config.network.id, record);
}

export function getRoom(ctx: NetworkContext, p: Principal, id: string): Room {
  return roomView(ctx.config.network.id, visibleRoom(ctx, p, id));
}

/** Rooms the principal may see, filtered before pagination. */
export function listRooms(ctx: NetworkContext, p: Principal, w: Window): { rooms: Room[]; page: Page } {
  const net = ctx.config.network.id;
  const v = viewerOf(p);
  const visible = ctx.store.listRooms().filter((r) => canSeeRoom(v, r, net));
  const s = paginate(visible, (r) => r.id, w);
  return { rooms: s.items.map((r) => roomView(net, r)), page: pageOf(s, (r) => r.id) };
}

export async function removeRoom(ctx: NetworkContext, id: string): Promise<RemovedResponse> {
  const room = ctx.store.getRoom(id);
  if (!room || room.removed_at) throw notFound(`room ${id}`);
  const t = now();
  await commit(ctx, [
    { op: 'room.put', room: { ...room, removed_at: t, updated_at: t } },
    { op: 'event.append', event: newEvent(ctx, 'room.removed', { room_id: id, room: roomView(ctx.config.network.id, room) }) },
  ]);
  return { removed: true, kind: 'room', id, mode: 'soft' };
}

/** The ops that change a room's members, or none when nothing changes. */
export function membershipOps(ctx: NetworkContext, room: RoomRecord, add: readonly string[], remove: readonly string[]): { record: RoomRecord; ops: WriteOp[] } {
  const net = ctx.config.network.id;
  const toAdd = normalizeMembers(net, add, 'body.add').filter((m) => !room.members.includes(m));
  const toRemove = normalizeMembers(net, remove, 'body.remove').filter((m) => room.members.includes(m) && !toAdd.includes(m));
  if (toAdd.length === 0 && toRemove.length === 0) return { record: room, ops: [] };
  const record: RoomRecord = { ...room, members: [...room.members.filter((m) => !toRemove.includes(m)), ...toAdd], updated_at: now() };
  return {
    record,
    ops: [
      { op: 'room.put', room: record },
      { op: 'event.append', event: newEvent(ctx, 'room.members.updated', { room: roomView(net, record), added: toAdd, removed: toRemove }) },
    ],
  };
}

export async function updateMembers(ctx: NetworkContext, id: string, add: readonly string[], remove: readonly string[]): Promise<Room> {
  const room = ctx.store.getRoom(id);
  if (!room || room.removed_at) throw notFound(`room ${id}`);
  const { record, ops } = membershipOps(ctx, room, add, remove);
  if (ops.length > 0) await commit(ctx, ops);
  return roomView(ctx.config.network.id, record);
}
