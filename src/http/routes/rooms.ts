import { createRoom, getRoom, listRooms, removeRoom, updateMembers, type RoomInput } from '../../network/rooms.js';
import { roomMessages, roomThreads } from '../../network/history.js';
import { windowOf } from '../query.js';
import type { Route } from '../router.js';

export const roomRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/rooms',
    action: 'topology.list',
    handler: async ({ ctx, principal, url }) => ({ body: await listRooms(ctx, principal, windowOf(url.searchParams)) }),
  },
  {
    method: 'POST',
    path: '/v1/rooms',
    action: 'admin',
    schema: 'create-room',
    handler: async ({ ctx, body }) => ({ body: await createRoom(ctx, body as RoomInput) }),
  },
  {
    method: 'GET',
    path: '/v1/rooms/:room_id',
    action: 'topology.get',
    handler: async ({ ctx, principal, params }) => ({ body: await getRoom(ctx, principal, params.room_id!) }),
  },
  {
    method: 'DELETE',
    path: '/v1/rooms/:room_id',
    action: 'admin',
    handler: async ({ ctx, params }) => ({ body: await removeRoom(ctx, params.room_id!) }),
  },
  {
    method: 'PATCH',
    path: '/v1/rooms/:room_id/members',
    action: 'admin',
    schema: 'update-members',
    handler: async ({ ctx, params, body }) => {
      const b = body as { add?: string[]; remove?: string[] };
      return { body: await updateMembers(ctx, params.room_id!, b.add ?? [], b.remove ?? []) };
    },
  },
  {
    method: 'GET',
    path: '/v1/rooms/:room_id/messages',
    action: 'history.read',
    handler: async ({ ctx, principal, params, url }) => ({
      body: await roomMessages(ctx, principal, params.room_id!, windowOf(url.searchParams), url.searchParams.get('as')),
      stream: true,
    }),
  },
  {
    method: 'GET',
    path: '/v1/rooms/:room_id/threads',
    action: 'history.read',
    handler: async ({ ctx, principal, params, url }) => ({
      body: await roomThreads(ctx, principal, params.room_id!, windowOf(url.searchParams)),
    }),
  },
];
