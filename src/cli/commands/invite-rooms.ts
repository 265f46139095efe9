// What accepting an invite would do to each shared room, and whether the operator must say yes
// first: federating an existing private room exposes its name, members and next messages to the
// other network, so it never happens silently. The decision is pure; the look-up asks the config
// and the running server of that config (with the operator token: a private room is invisible to
// an anonymous caller).

import { existsSync } from 'node:fs';
import { ClientError, SvcClient } from '../../client/index.js';
import type { Config } from '../../config/types.js';
import { resolveTarget } from '../target.js';

/** What a shared room is on this network before the invite is accepted. */
export type RoomState =
  | { id: string; state: 'new' }
  | { id: string; state: 'public' }
  | { id: string; state: 'private' }
  /** It may exist and be private, and nothing could tell (the server did not answer). */
  | { id: string; state: 'unknown'; why: string };

/** The rooms that need the operator's explicit consent (private or unknown), given the --allow-private list. */
export function roomsNeedingConsent(rooms: readonly RoomState[], allowed: ReadonlySet<string>): RoomState[] {
  return rooms.filter((r) => (r.state === 'private' || r.state === 'unknown') && !allowed.has(r.id));
}

/** One line per room for the operator: what sharing it means. */
export function describeRoom(r: RoomState): string {
  switch (r.state) {
    case 'new':
      return `${r.id}: new room (created public, shared with the other network)`;
    case 'public':
      return `${r.id}: existing public room`;
    case 'private':
      return `${r.id}: existing PRIVATE room: the other network would read its name, members and new messages`;
    case 'unknown':
      return `${r.id}: not declared in the config, and ${r.why}: it may be an existing private room`;
  }
}

/** The state of each shared room: the config first, then the running server of the config. */
export async function lookUpRooms(ids: readonly string[], config: Config, configFile: string, env: NodeJS.ProcessEnv): Promise<RoomState[]> {
  const out: RoomState[] = [];
  const ask: string[] = [];
  for (const id of ids) {
    const declared = config.rooms.find((r) => r.id === id);
    if (declared?.visibility === 'private') out.push({ id, state: 'private' });
    else ask.push(id); // a declared room without visibility keeps what the store has
  }
  if (ask.length === 0) return out;
  // Nothing persists in a memory store, and a sqlite file that does not exist yet holds no room.
  const storeEmpty = config.store.backend === 'memory' || (config.store.backend === 'sqlite' && !existsSync(config.store.path));
  let client: SvcClient | undefined;
  try {
    const target = resolveTarget({ config: configFile }, { ...env, SVC_URL: '', SVC_TOKEN: '' });
    client = new SvcClient({ url: target.url, ...(target.token !== undefined ? { token: target.token } : {}), timeoutMs: 3000 });
    for (const id of ask) out.push(await stateFromServer(client, id, target.token !== undefined));
  } catch (err) {
    const why = `the server at its listen address could not be asked (${(err as Error).message.split('\n')[0]})`;
    for (const id of ask) if (!out.some((r) => r.id === id)) out.push(storeEmpty ? { id, state: 'new' } : { id, state: 'unknown', why });
  } finally {
    await client?.close().catch(() => undefined);
  }
  return ids.map((id) => out.find((r) => r.id === id)!);
}

async function stateFromServer(client: SvcClient, id: string, withToken: boolean): Promise<RoomState> {
  try {
    const room = await client.getRoom(id);
    return { id, state: room.visibility === 'private' ? 'private' : 'public' };
  } catch (err) {
    // Without a token a private room answers 404 like a missing one: only a token can say "new".
    if (err instanceof ClientError && err.status === 404 && withToken) return { id, state: 'new' };
    if (err instanceof ClientError && err.status === 404) return { id, state: 'unknown', why: 'no operator token could look behind the anonymous view' };
    throw err;
  }
}
