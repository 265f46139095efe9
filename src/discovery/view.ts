// What the discovery documents are rendered from: a plain view of the live config and the rooms
// the caller may observe (DocView), and what the caller's credential allows (CallerAccess).
// Building them reads the network; rendering them (install.ts, skill.ts, llms.ts) is pure.

import type { Principal } from '../auth/principal.js';
import { canSeeRoom, viewerOf } from '../auth/visibility.js';
import type { AuthMode, Registration } from '../config/types.js';
import type { RoomRecord } from '../store/types.js';
import type { NetworkContext } from '../network/context.js';
import type { Visibility, WritePolicy } from '../protocol/types.js';

export interface DocRoom {
  id: string;
  name: string;
  visibility: Visibility;
  write_policy: WritePolicy;
  members: string[];
}

export interface DocView {
  network: { id: string; name: string; version: string };
  auth: { mode: AuthMode; public_read: boolean; agent_registration: Registration };
  server: { human_ingress: boolean; direct_messages: boolean; heartbeat_interval_ms: number };
  /** Rooms the caller may observe, in creation order. */
  rooms: DocRoom[];
}

export interface CallerAccess {
  kind: 'anonymous' | 'token' | 'agent' | 'trusted';
  /** Reads topology and history with a credential (observe or admin, an agent token, or mode none). */
  observe: boolean;
  write: boolean;
  admin: boolean;
  attach: boolean;
  /** The credential's scopes, sorted (empty for anonymous). */
  scopes: string[];
  /** The agent an agent token acts as. */
  agentId?: string;
  /** A static token's allowlist of agent ids. */
  agents?: string[];
}

export const ANONYMOUS: CallerAccess = { kind: 'anonymous', observe: false, write: false, admin: false, attach: false, scopes: [] };

/** What a principal's credential allows, for rendering. */
export function accessOf(p: Principal): CallerAccess {
  switch (p.kind) {
    case 'trusted':
      return { kind: 'trusted', observe: true, write: true, admin: true, attach: true, scopes: ['admin', 'attach', 'observe', 'write'] };
    case 'anonymous':
      return ANONYMOUS;
    case 'agent':
      return { kind: 'agent', observe: true, write: true, admin: false, attach: true, scopes: [...p.scopes].sort(), agentId: p.agentId };
    case 'static': {
      const s = p.scopes;
      return {
        kind: 'token',
        observe: s.has('observe') || s.has('admin'),
        write: s.has('write'),
        admin: s.has('admin'),
        attach: s.has('attach'),
        scopes: [...s].sort(),
        ...(p.agents ? { agents: [...p.agents].sort() } : {}),
      };
    }
  }
}

/** The rooms a caller can observe: its visible rooms with a reading credential, else public rooms under public read. */
export async function observableRooms(ctx: NetworkContext, p: Principal, access: CallerAccess): Promise<RoomRecord[]> {
  const net = ctx.config.network.id;
  const rooms = await ctx.store.listRooms();
  if (access.observe) {
    const v = viewerOf(p);
    return rooms.filter((r) => canSeeRoom(v, r, net));
  }
  // Write-, attach-only and anonymous callers observe nothing with their credential; public read
  // shows them what anyone may see.
  return ctx.config.auth.public_read ? rooms.filter((r) => r.visibility === 'public') : [];
}

/** The document view for a caller. `p` decides which rooms are listed. */
export async function docView(ctx: NetworkContext, p: Principal, access: CallerAccess = accessOf(p)): Promise<DocView> {
  const c = ctx.config;
  return {
    network: { id: c.network.id, name: c.network.name, version: ctx.version },
    auth: { mode: c.auth.mode, public_read: c.auth.public_read, agent_registration: c.auth.agent_registration },
    server: {
      human_ingress: c.server.human_ingress,
      direct_messages: c.server.direct_messages,
      heartbeat_interval_ms: c.server.heartbeat_interval_ms,
    },
    rooms: (await observableRooms(ctx, p, access)).map((r) => ({
      id: r.id,
      name: r.name,
      visibility: r.visibility,
      write_policy: r.write_policy,
      members: [...r.members],
    })),
  };
}
