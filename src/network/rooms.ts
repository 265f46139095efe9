// Rooms: create, read, list, soft removal and membership, as store intents.

import { conflict, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { roomFilterOf, viewerOf } from '../auth/visibility.js';
import { pageOf, type Window } from '../protocol/pagination.js';
import type { Page, RemovedResponse, Room, Visibility, WritePolicy } from '../protocol/types.js';
import { StoreError, type MembersEvent, type RoomCreateOp } from '../store/types.js';
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

/** The intent that creates a room (or revives a soft-removed one); members checked here. */
export function roomCreateOp(ctx: NetworkContext, input: RoomInput): RoomCreateOp {
  const net = ctx.config.network.id;
  return {
    op: 'room.create',
    room: {
      id: input.id,
      ...(input.name !== undefined ? { name: input.name } : {}),
      members: normalizeMembers(net, input.members ?? [], 'body.members'),
      visibility: input.visibility ?? 'public',
      write_policy: input.write_policy ?? 'members',
      ...(input.federation_pairings !== undefined ? { federation_pairings: input.federation_pairings } : {}),
    },
    at: now(),
    event: (room) => newEvent(ctx, 'room.created', { room: roomView(net, room) }),
  };
}

/** The event of a membership change, built from the room as stored. */
export function membersEvent(ctx: NetworkContext): MembersEvent {
  const net = ctx.config.network.id;
  return (room, added, removed) => newEvent(ctx, 'room.members.updated', { room: roomView(net, room), added, removed });
}

export async function createRoom(ctx: NetworkContext, input: RoomInput): Promise<Room> {
  const { outcomes } = await commit(ctx, [roomCreateOp(ctx, input)]).catch(storeRefusal);
  const o = outcomes[0]!;
  if (o.op !== 'room.create') throw new Error('unexpected outcome');
  return roomView(ctx.config.network.id, o.room);
}

export async function getRoom(ctx: NetworkContext, p: Principal, id: string): Promise<Room> {
  return withDeclared(ctx, roomView(ctx.config.network.id, await visibleRoom(ctx, p, id)));
}

/** The room with what svc.yaml declares for it, when it does: which source wins, shown (svc apply --dry-run reads it). */
function withDeclared(ctx: NetworkContext, room: Room): Room {
  const d = ctx.config.rooms.find((r) => r.id === room.id);
  if (!d) return room;
  const declared: NonNullable<Room['declared_by_config']> = {
    ...(d.name !== undefined ? { name: d.name } : {}),
    ...(d.members !== undefined ? { members: [...d.members] } : {}),
    ...(d.visibility !== undefined ? { visibility: d.visibility } : {}),
    ...(d.write_policy !== undefined ? { write_policy: d.write_policy } : {}),
  };
  return { ...room, declared_by_config: declared };
}

/** Rooms the principal may see, filtered before pagination (by the store). */
export async function listRooms(ctx: NetworkContext, p: Principal, w: Window): Promise<{ rooms: Room[]; page: Page }> {
  const net = ctx.config.network.id;
  const s = await ctx.store.pageRooms(roomFilterOf(viewerOf(p), net), w);
  return { rooms: s.items.map((r) => withDeclared(ctx, roomView(net, r))), page: pageOf(s, (r) => r.id) };
}

export async function removeRoom(ctx: NetworkContext, id: string): Promise<RemovedResponse> {
  const net = ctx.config.network.id;
  await commit(ctx, [
    { op: 'room.remove', id, at: now(), event: (room) => newEvent(ctx, 'room.removed', { room_id: id, room: roomView(net, room) }) },
  ]).catch(storeRefusal);
  return { removed: true, kind: 'room', id, mode: 'soft' };
}

export async function updateMembers(ctx: NetworkContext, id: string, add: readonly string[], remove: readonly string[]): Promise<Room> {
  const net = ctx.config.network.id;
  const op = {
    op: 'room.members.change' as const,
    room_id: id,
    add: normalizeMembers(net, add, 'body.add'),
    remove: normalizeMembers(net, remove, 'body.remove'),
    at: now(),
    event: membersEvent(ctx),
  };
  const { outcomes } = await commit(ctx, [op]).catch(storeRefusal);
  const o = outcomes[0]!;
  if (o.op !== 'room.members.change') throw new Error('unexpected outcome');
  return roomView(net, o.room);
}

/** Turns the store's refusals of room intents into catalogue errors. */
export function storeRefusal(err: unknown): never {
  if (err instanceof StoreError) {
    if (err.code === 'not_found') throw notFound(err.message);
    if (err.code === 'room_exists') throw conflict(err.message);
  }
  throw err;
}
