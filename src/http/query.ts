// Query parameters shared by list routes.

import { badRequest } from '../errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT, type Window } from '../protocol/pagination.js';

/** `limit` (default 100, values above 500 are capped at 500), `before`, `after`. */
export function windowOf(q: URLSearchParams): Window {
  const raw = q.get('limit');
  let limit = DEFAULT_LIMIT;
  if (raw !== null) {
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw badRequest(`query.limit: must be an integer from 1 to ${MAX_LIMIT}`);
    limit = Math.min(Number(raw), MAX_LIMIT);
  }
  const w: Window = { limit };
  for (const k of ['before', 'after'] as const) {
    const v = q.get(k);
    if (v === null) continue;
    if (v === '' || v.length > 256) throw badRequest(`query.${k}: must be an item id from a previous page`);
    w[k] = v;
  }
  return w;
}

export function optionalParam(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (v === '' || v.length > 256) throw badRequest(`query.${name}: must be a non-empty id`);
  return v;
}
