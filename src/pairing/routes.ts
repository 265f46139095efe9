// GET /v1/pairings and the proxied reads of a paired network (network, rooms, agents). Observe or
// admin, never a self-registered agent token (the pairings.read rule). No response carries a token.

import { AppError, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { paginate, pageOf, type Window } from '../protocol/pagination.js';
import type { Room } from '../protocol/types.js';
import { filterRemoteAgents, filterRemoteRooms, type RemoteViewer } from './filter.js';
import { RemoteFailure, type PairingManager, type PairingView } from './manager.js';
import { windowOf } from '../http/query.js';
import type { Route } from '../http/router.js';

export interface PairingList {
  list(): PairingManager[];
  get(id: string): PairingManager | undefined;
}

/** How many pages of the remote's rooms or agents a proxied listing reads at most. */
const MAX_REMOTE_PAGES = 50;
/** Page size asked of the remote: small enough that one answer fits a relay frame. */
const REMOTE_PAGE = 200;

function viewerFor(p: Principal): RemoteViewer {
  return p.kind === 'static' && p.agents ? { agents: p.agents } : {};
}

function managerOf(pairings: PairingList, id: string): PairingManager {
  const m = pairings.get(id);
  if (!m) throw notFound(`pairing ${id}`);
  return m;
}

async function remote(m: PairingManager, path: string): Promise<Record<string, unknown>> {
  try {
    const r = await m.call('GET', path);
    if (r.status !== 200 || r.body === null || typeof r.body !== 'object' || Array.isArray(r.body)) {
      throw new AppError('bad_gateway', `pairing ${m.id}: the paired network answered GET ${path.split('?')[0]} with HTTP ${r.status}`);
    }
    return r.body as Record<string, unknown>;
  } catch (err) {
    if (err instanceof RemoteFailure) throw new AppError('bad_gateway', err.message);
    throw err;
  }
}

/** Every item of a remote list (oldest first), following `page.next_before`. */
async function remoteAll(m: PairingManager, path: string, key: 'rooms' | 'agents'): Promise<unknown[]> {
  const pages: unknown[][] = [];
  let before: string | undefined;
  for (let i = 0; i < MAX_REMOTE_PAGES; i++) {
    const body = await remote(m, `${path}?limit=${REMOTE_PAGE}${before ? `&before=${encodeURIComponent(before)}` : ''}`);
    const items = Array.isArray(body[key]) ? (body[key] as unknown[]) : [];
    pages.unshift(items);
    const page = body.page as { has_more?: unknown; next_before?: unknown } | undefined;
    if (page?.has_more !== true || typeof page.next_before !== 'string') break;
    before = page.next_before;
  }
  return pages.flat();
}

function remoteIdOf(m: PairingManager, doc?: Record<string, unknown>): string {
  return m.remoteNetworkId ?? (typeof doc?.id === 'string' ? doc.id : '');
}

function pageBy<T extends { id: string }>(items: T[], w: Window) {
  const s = paginate(items, (x) => x.id, w);
  return { items: s.items, page: pageOf(s, (x) => x.id) };
}

async function remoteRooms(m: PairingManager, p: Principal, local: string): Promise<Room[]> {
  const raw = await remoteAll(m, '/v1/rooms', 'rooms');
  return filterRemoteRooms(raw, viewerFor(p), local, remoteIdOf(m));
}

export function pairingRoutes(pairings: PairingList): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/pairings',
      action: 'pairings.read',
      handler: ({ url }) => {
        const { items, page } = pageBy<PairingView>(
          pairings.list().map((m) => m.view()),
          windowOf(url.searchParams),
        );
        return { body: { pairings: items, page } };
      },
    },
    {
      method: 'GET',
      path: '/v1/pairings/:pairing_id/network',
      action: 'pairings.read',
      handler: async ({ params }) => ({ body: await remote(managerOf(pairings, params.pairing_id!), '/v1/network') }),
    },
    {
      method: 'GET',
      path: '/v1/pairings/:pairing_id/rooms',
      action: 'pairings.read',
      handler: async ({ params, principal, url, ctx }) => {
        const w = windowOf(url.searchParams);
        const rooms = await remoteRooms(managerOf(pairings, params.pairing_id!), principal, ctx.config.network.id);
        const { items, page } = pageBy(rooms, w);
        return { body: { rooms: items, page } };
      },
    },
    {
      method: 'GET',
      path: '/v1/pairings/:pairing_id/agents',
      action: 'pairings.read',
      handler: async ({ params, principal, url, ctx }) => {
        const w = windowOf(url.searchParams);
        const m = managerOf(pairings, params.pairing_id!);
        const local = ctx.config.network.id;
        const v = viewerFor(principal);
        // An allowlisted viewer sees agents of the rooms it sees, so the rooms are read first.
        const rooms = v.agents ? await remoteRooms(m, principal, local) : [];
        const agents = filterRemoteAgents(await remoteAll(m, '/v1/agents', 'agents'), rooms, v, local, remoteIdOf(m));
        const { items, page } = pageBy(agents, w);
        return { body: { agents: items, page } };
      },
    },
  ];
}
