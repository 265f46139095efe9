// Full-text search over what the caller may read. The conversations a caller may read are decided
// by the functions history uses (auth/visibility.ts, access.ts) and handed to the store as the
// search's scope, so the store applies them inside the query, before the page is counted.

import type { Principal } from '../auth/principal.js';
import { canSeeDm, canSeeRoom, dmFilterOf, type Viewer, viewerOf } from '../auth/visibility.js';
import { badRequest } from '../errors.js';
import { parseFqid, scoped } from '../protocol/ids.js';
import { MAX_QUERY_LENGTH, parseQuery, snippetOf, type SearchHit } from '../protocol/search-text.js';
import type { Page } from '../protocol/types.js';
import type { DmRecord, SearchQuery } from '../store/types.js';
import { visibleDm, visibleRoom, visibleThread } from './access.js';
import { withAdditions, type NetworkContext } from './context.js';
import { budgetedNewestFirst, pageBudgetOf } from './page-budget.js';

/**
 * The DMs a viewer may search (the DM listing's filter, auth/visibility.ts): every DM for one that
 * sees the whole network, else its agents' own through the store's member index, so a search costs
 * what the caller's DMs cost, not the network's.
 */
async function readableDms(ctx: NetworkContext, v: Viewer): Promise<readonly DmRecord[]> {
  const f = dmFilterOf(v, ctx.config.network.id);
  if (!f) return [];
  if (f.all) return ctx.store.listDms();
  const participants = f.participants ?? [];
  return participants.length === 0 ? [] : (await ctx.store.conversationsWith({ members: [], participants })).dms;
}

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;

export interface SearchRequest {
  q: string;
  room_id?: string;
  thread_id?: string;
  dm_id?: string;
  /** Sender: a local id, `<network_id>:<id>` or an agent FQID. */
  from?: string;
  limit: number;
  before?: string;
}

export interface SearchResult {
  messages: SearchHit[];
  page: Page;
}

/** The scoped form of a `from` filter; undefined when it cannot name a sender. */
function senderOf(net: string, raw: string): string | undefined {
  if (raw.startsWith('svc://')) {
    const f = parseFqid(raw);
    return f && f.kind === 'agents' ? `${f.network_id}:${f.id}` : undefined;
  }
  return raw.split(':').length <= 2 ? scoped(net, raw) : undefined;
}

/** Messages matching `req.q` that the caller could read in history, newest first. */
export async function searchMessages(ctx: NetworkContext, p: Principal, req: SearchRequest): Promise<SearchResult> {
  if (req.q.length > MAX_QUERY_LENGTH) throw badRequest(`query.q: must be at most ${MAX_QUERY_LENGTH} characters`);
  const terms = parseQuery(req.q);
  if (!terms) throw badRequest('query.q: must contain at least one word (letters or digits)');
  const net = ctx.config.network.id;
  const from = req.from === undefined ? undefined : senderOf(net, req.from);
  if (req.from !== undefined && from === undefined) throw badRequest('query.from: must be an id, <network_id>:<id> or an agent FQID');
  // A named conversation answers exactly as its history would (404, 401, 403 when DMs are off).
  if (req.room_id !== undefined) await visibleRoom(ctx, p, req.room_id);
  if (req.thread_id !== undefined) await visibleThread(ctx, p, req.thread_id);
  if (req.dm_id !== undefined) await visibleDm(ctx, p, req.dm_id);

  const v = viewerOf(p);
  const rooms = await ctx.store.listRooms();
  // DMs are searched only where their history may be read: DMs on, and a bearer caller.
  const dmsReadable = ctx.config.server.direct_messages && p.kind !== 'anonymous';
  const dms = dmsReadable ? await readableDms(ctx, v) : [];
  const q: SearchQuery = {
    terms,
    scope: {
      room_ids: rooms.filter((r) => !r.removed_at && canSeeRoom(v, r, net)).map((r) => r.id),
      dm_ids: dms.filter((d) => canSeeDm(v, d, net)).map((d) => d.id),
    },
    ...(req.room_id !== undefined ? { room_id: req.room_id } : {}),
    ...(req.thread_id !== undefined ? { thread_id: req.thread_id } : {}),
    ...(req.dm_id !== undefined ? { dm_id: req.dm_id } : {}),
    ...(from !== undefined ? { from } : {}),
    limit: req.limit,
  };
  const r = await budgetedNewestFirst(
    (before, limit) => ctx.store.searchMessages({ ...q, limit, ...(before !== undefined ? { before } : {}) }),
    req.before,
    req.limit,
    pageBudgetOf(ctx),
  );
  const page: Page = { has_more: r.has_more };
  const last = r.items[r.items.length - 1];
  if (r.has_more && last) page.next_before = last.id;
  const hits = await withAdditions(ctx, r.items);
  return { messages: hits.map((m) => ({ ...m, snippet: snippetOf(m, terms) })), page };
}
