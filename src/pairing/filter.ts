// Remote rooms and agents as a local viewer may see them (the spec, Agent allowlists): an
// unrestricted reader sees what the remote shows this pairing; an agents-allowlisted token sees
// remote public rooms, and private ones only where the remote lists one of its agents explicitly
// with this network (`<local>:<agent>` or the FQID). Anything ambiguous is left out. Pure.

import type { AgentSummary, Room } from '../protocol/types.js';

export interface RemoteViewer {
  /** Local agent ids the token may act as; undefined = unrestricted. */
  agents?: ReadonlySet<string>;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The remote's rooms this viewer may see, in the remote's order. */
export function filterRemoteRooms(raw: readonly unknown[], v: RemoteViewer, localNetworkId: string, remoteNetworkId: string): Room[] {
  const rooms = raw.filter((r): r is Room => isObj(r) && typeof r.id === 'string');
  if (!v.agents) return rooms;
  // A remote that calls itself by our id makes every label ambiguous: show nothing.
  if (remoteNetworkId === localNetworkId) return [];
  const mine = new Set<string>();
  for (const a of v.agents) {
    mine.add(`${localNetworkId}:${a}`);
    mine.add(`svc://${localNetworkId}/agents/${a}`);
  }
  return rooms.filter((r) => {
    if (r.network_id !== remoteNetworkId) return false;
    if (r.visibility === 'public') return true;
    return strs(r.members).some((m) => mine.has(m));
  });
}

/** Remote agents this viewer may see: members of visible rooms (all of them when unrestricted). `name` is dropped. */
export function filterRemoteAgents(
  raw: readonly unknown[],
  visibleRooms: readonly Room[],
  v: RemoteViewer,
  localNetworkId: string,
  remoteNetworkId: string,
): AgentSummary[] {
  const agents = raw.filter((a): a is AgentSummary => isObj(a) && typeof a.id === 'string');
  const strip = (a: AgentSummary, rooms?: string[]): AgentSummary => {
    const { name: _name, ...rest } = a;
    return { ...rest, rooms: rooms ?? strs(a.rooms) };
  };
  if (!v.agents) return agents.map((a) => strip(a));
  if (remoteNetworkId === localNetworkId) return [];
  const visibleIds = new Set(visibleRooms.map((r) => r.id));
  const out: AgentSummary[] = [];
  for (const a of agents) {
    if (a.network_id !== remoteNetworkId) continue;
    const forms = new Set([a.id, `${remoteNetworkId}:${a.id}`, `svc://${remoteNetworkId}/agents/${a.id}`]);
    const rooms = visibleRooms
      .filter((r) => strs(r.members).some((m) => forms.has(m)) || (strs(a.rooms).includes(r.id) && visibleIds.has(r.id)))
      .map((r) => r.id);
    if (rooms.length > 0) out.push(strip(a, rooms));
  }
  return out;
}
