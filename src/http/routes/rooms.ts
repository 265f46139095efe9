import { createRoom, getRoom, listRooms, removeRoom, updateMembers, type RoomInput } from '../../network/rooms.js';
import { roomMessages, roomThreads } from '../../network/history.js';
import { windowOf } from '../query.js';
import type { Route } from '../router.js';

export const roomRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/rooms',
    action: 'topology.list',
    handler: async ({ net, principal, url }) => ({ body: await listRooms(net, principal, windowOf(url.searchParams)) }),
  },
  {
    method: 'POST',
    path: '/v1/rooms',
    action: 'admin',
    schema: 'create-room',
    handler: async ({ net, body }) => ({ body: await createRoom(net, body as RoomInput) }),
  },
  {
    method: 'GET',
    path: '/v1/rooms/:room_id',
    action: 'topology.get',
    handler: async ({ net, principal, params }) => ({ body: await getRoom(net, principal, params.room_id!) }),
  },
  {
    method: 'DELETE',
    path: '/v1/rooms/:room_id',
    action: 'admin',
    handler: async ({ net, params }) => ({ body: await removeRoom(net, params.room_id!) }),
  },
  {
    method: 'PATCH',
    path: '/v1/rooms/:room_id/members',
    action: 'admin',
    schema: 'update-members',
    handler: async ({ net, params, body }) => {
      const b = body as { add?: string[]; remove?: string[] };
      return { body: await updateMembers(net, params.room_id!, b.add ?? [], b.remove ?? []) };
    },
  },
  {
    method: 'GET',
    path: '/v1/rooms/:room_id/messages',
    action: 'history.read',
    handler: async ({ net, principal, params, url }) => ({
      body: await roomMessages(net, principal, params.room_id!, windowOf(url.searchParams)),
    }),
  },
  {
    method: 'GET',
    path: '/v1/rooms/:room_id/threads',
    action: 'history.read',
    handler: async ({ net, principal, params, url }) => ({
      body: await roomThreads(net, principal, params.room_id!, windowOf(url.searchParams)),
    }),
  },
];
