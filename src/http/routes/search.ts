import { badRequest } from '../../errors.js';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, searchMessages, type SearchRequest } from '../../network/search.js';
import { optionalParam } from '../query.js';
import type { Route } from '../router.js';

/** The query of GET /v1/search; `limit` above the maximum is capped, as history caps its own. */
export function searchRequestOf(q: URLSearchParams): SearchRequest {
  const text = q.get('q');
  if (text === null || text.trim() === '') throw badRequest('query.q: is required (the words to search for)');
  if (q.has('after')) throw badRequest('query.after: search pages go back in time only; use before');
  const raw = q.get('limit');
  let limit = SEARCH_DEFAULT_LIMIT;
  if (raw !== null) {
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw badRequest(`query.limit: must be an integer from 1 to ${SEARCH_MAX_LIMIT}`);
    limit = Math.min(Number(raw), SEARCH_MAX_LIMIT);
  }
  const req: SearchRequest = { q: text, limit };
  for (const k of ['room_id', 'thread_id', 'dm_id', 'from', 'before'] as const) {
    const v = optionalParam(q, k);
    if (v !== undefined) req[k] = v;
  }
  return req;
}

// Scope of a history read: observe or admin, or anonymous under public read.
export const searchRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/search',
    action: 'history.read',
    handler: async ({ ctx, principal, url }) => ({
      body: await searchMessages(ctx, principal, searchRequestOf(url.searchParams)),
      stream: true,
    }),
  },
];
