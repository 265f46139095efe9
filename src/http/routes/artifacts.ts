import { listArtifacts } from '../../network/history.js';
import { optionalParam, windowOf } from '../query.js';
import type { Route } from '../router.js';

export const artifactRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/artifacts',
    action: 'artifacts.read',
    handler: async ({ ctx, principal, url }) => {
      const q = url.searchParams;
      const filter = {
        ...(optionalParam(q, 'room_id') !== undefined ? { room_id: optionalParam(q, 'room_id')! } : {}),
        ...(optionalParam(q, 'thread_id') !== undefined ? { thread_id: optionalParam(q, 'thread_id')! } : {}),
        ...(optionalParam(q, 'dm_id') !== undefined ? { dm_id: optionalParam(q, 'dm_id')! } : {}),
      };
      return { body: await listArtifacts(ctx, principal, filter, windowOf(q)) };
    },
  },
];
