// What accepting an invite would do to each shared room, and whether the operator must say yes
// first: federating an existing private room exposes its name, members and next messages to the
// other network, so it never happens silently. The decision is pure; the look-up asks, in order,
// the config, the running server of that config (found through its runtime file, asked with the
// operator token: a private room is invisible to an anonymous caller), and when no server runs the
// store itself, read-only (sqlite, Postgres). "unknown" is left only when none of them can answer.

import { ClientError } from '../../../client/errors.js';
import { SvcClient } from '../../../client/svc-client.js';
import { type Config, DEFAULT_STORE_SCHEMA } from '../../../config/types.js';
import { readRuntimeFile } from '../../../config/runtime-file.js';
import { readStoredRooms } from '../../../store/read-rooms.js';
import { resolveTarget, type Target } from '../../target.js';
import { checkOwnNetwork } from '../../target-check.js';

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

/** The state of each shared room: the config, then its running server, else its store read-only. */
export async function lookUpRooms(
  ids: readonly string[],
  config: Config,
  configFile: string,
  env: NodeJS.ProcessEnv,
): Promise<RoomState[]> {
  const out = new Map<string, RoomState>();
  let ask: string[] = [];
  for (const id of ids) {
    const declared = config.rooms.find((r) => r.id === id);
    if (declared?.visibility === 'private') out.set(id, { id, state: 'private' });
    else ask.push(id); // a declared room without visibility keeps what the store has
  }
  const problems: string[] = [];
  const running = readRuntimeFile(configFile) !== undefined;
  if (ask.length > 0 && running) ask = await askServer(ask, configFile, env, out, problems);
  // No server, or one that could not tell (no operator token): the store itself, read-only.
  if (ask.length > 0) ask = await readStore(ask, config, running, out, problems);
  // A server of an older version writes no runtime file: the config's address may still answer.
  if (ask.length > 0 && !running) ask = await askServer(ask, configFile, env, out, problems);
  const why = problems.join('; and ');
  for (const id of ask) out.set(id, { id, state: 'unknown', why });
  return ids.map((id) => out.get(id)!);
}

/** Asks the config's server with its operator token; returns the ids it could not settle. */
async function askServer(
  ids: string[],
  configFile: string,
  env: NodeJS.ProcessEnv,
  out: Map<string, RoomState>,
  problems: string[],
): Promise<string[]> {
  let client: SvcClient | undefined;
  let target: Target | undefined;
  const left: string[] = [];
  try {
    target = resolveTarget({ config: configFile }, { ...env, SVC_URL: '', SVC_TOKEN: '' });
    await checkOwnNetwork(target);
    client = new SvcClient({ url: target.url, ...(target.token !== undefined ? { token: target.token } : {}), timeoutMs: 3000 });
    for (const id of ids) {
      const state = await stateFromServer(client, id, target.token !== undefined);
      if (state) out.set(id, state);
      else left.push(id);
    }
    if (left.length > 0)
      problems.push(
        `the server at ${target.url} shows an anonymous caller too little to tell, and ${target.configFile} has no operator token for it`,
      );
    return left;
  } catch (err) {
    const where = target ? `the server at ${target.url}` : 'the server of the config';
    problems.push(`${where} could not be asked (${(err as Error).message.split('\n')[0]})`);
    return ids;
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** Reads the rooms from the store itself (no server runs); returns the ids it could not settle. */
async function readStore(
  ids: string[],
  config: Config,
  running: boolean,
  out: Map<string, RoomState>,
  problems: string[],
): Promise<string[]> {
  try {
    const rooms = await readStoredRooms(config.store, ids);
    for (const id of ids) {
      const r = rooms.get(id);
      out.set(id, r === undefined ? { id, state: 'new' } : { id, state: r.visibility === 'private' ? 'private' : 'public' });
    }
    return [];
  } catch (err) {
    const where =
      config.store.backend === 'postgres'
        ? `the Postgres store (schema ${config.store.schema ?? DEFAULT_STORE_SCHEMA})`
        : `the store ${config.store.path}`;
    problems.push(
      `${running ? '' : 'no server of this config is running (no runtime file), and '}${where} could not be read (${(err as Error).message.split('\n')[0]})`,
    );
    return ids;
  }
}

/** A room's state as the server tells it; undefined when an anonymous 404 cannot tell. */
async function stateFromServer(client: SvcClient, id: string, withToken: boolean): Promise<RoomState | undefined> {
  try {
    const room = await client.getRoom(id);
    return { id, state: room.visibility === 'private' ? 'private' : 'public' };
  } catch (err) {
    if (err instanceof ClientError && err.status === 404) return withToken ? { id, state: 'new' } : undefined;
    // Anonymous: a private room answers 401 "room ID is not public"; any other 401 (the server
    // shows nothing anonymously) cannot tell.
    if (err instanceof ClientError && err.status === 401 && !withToken)
      return err.detail?.endsWith('is not public; send a bearer token') ? { id, state: 'private' } : undefined;
    throw err;
  }
}
