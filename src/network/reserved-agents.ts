// Reserved agent ids (#38 item 6): ids svc.yaml or an operator named before any agent claimed them.
// Under open registration the first claim wins, so without this a stranger could register
// `deploybot`, a declared member of a private room, and read the room, or register an inbound
// hook's sender and take the hook's messages over. auth/agent-claims.ts decides who must keep off
// these ids; this file only finds them. Ids in a static token's `agents` list need no entry: they
// are bound to their token when svc.yaml is declared (network/apply.ts), so they are claimed
// already. What it says of an id names nothing private: not a private room's id, not a hook's id,
// not a token's.

import type { NetworkContext } from './context.js';

/** Every reserved id with where it is named (the first place found). */
export async function reservedAgents(ctx: NetworkContext): Promise<Map<string, string>> {
  const net = ctx.config.network.id;
  const named = new Map<string, string>();
  const add = (id: string, namedAs: string) => {
    if (!named.has(id)) named.set(id, namedAs);
  };
  for (const h of ctx.config.inbound_hooks) add(h.sender, 'the sender of an inbound hook');
  for (const list of ctx.extensions.reservedAgents ?? []) for (const r of list()) add(r.id, r.namedAs);
  // Stored rooms hold svc.yaml's rooms, svc apply's and those operators made or changed over HTTP.
  for (const r of await ctx.store.listRooms()) {
    for (const m of r.members) {
      // A local member is bare or `<this network>:<id>` (auth/visibility.ts memberIsLocalAgent); others are remote.
      const id = m.startsWith(`${net}:`) ? m.slice(net.length + 1) : m.includes(':') ? undefined : m;
      if (id === undefined) continue;
      add(id, r.visibility === 'public' ? `a declared member of room ${r.id}` : 'a declared member of a private room');
    }
  }
  return named;
}

/**
 * Where `id` alone is named, if anywhere (the same answer as `reservedAgents(ctx).get(id)`), from
 * the member index: a claim of a given id costs its own rooms, not every room on the network.
 */
export async function reservedAs(ctx: NetworkContext, id: string): Promise<string | undefined> {
  const hook = ctx.config.inbound_hooks.find((h) => h.sender === id);
  if (hook) return 'the sender of an inbound hook';
  for (const list of ctx.extensions.reservedAgents ?? []) {
    const r = list().find((x) => x.id === id);
    if (r) return r.namedAs;
  }
  const { rooms } = await ctx.store.conversationsWith({ members: [id, `${ctx.config.network.id}:${id}`], participants: [] });
  const room = rooms[0];
  if (!room) return undefined;
  return room.visibility === 'public' ? `a declared member of room ${room.id}` : 'a declared member of a private room';
}
