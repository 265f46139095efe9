// Where `svc mcp` keeps an agent's state (its attachment cursor, read markers, channel state) when
// --state-dir is not given: ~/.svc/mcp/<networkId>@<uid>/<agentId>. Keyed by the network's identity
// (its id and the unique id its store holds, GET /v1/network `uid`): two networks that share an id
// (two `home`s) no longer share a cursor, and every instance of one network finds its own. Earlier
// releases keyed it by the network id alone (~/.svc/mcp/<networkId>/<agentId>): that folder is moved
// to the identity's once, by the first network of that id to start with a uid.

import { existsSync, mkdirSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { identityKey } from '../protocol/network-key.js';

/** The state folder of an agent of a network (by id alone only for a server that has no uid). */
export function defaultStateDir(network: { id: string; uid?: string }, agentId: string, home = os.homedir()): string {
  const key = network.uid !== undefined ? identityKey(network.id, network.uid) : network.id;
  return path.join(home, '.svc', 'mcp', key, agentId);
}

/** The default state folder, after moving an earlier release's folder there when it is the first to ask. */
export function stateDirOf(
  network: { id: string; uid?: string },
  agentId: string,
  log: (line: string) => void,
  home = os.homedir(),
): string {
  const dir = defaultStateDir(network, agentId, home);
  if (network.uid === undefined || existsSync(dir)) return dir;
  const old = defaultStateDir({ id: network.id }, agentId, home);
  if (!existsSync(old)) return dir;
  try {
    mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    renameSync(old, dir);
    log(`svc mcp: moved the state of ${agentId} kept by an earlier release from ${old} to ${dir} (keyed by the network's identity now)`);
  } catch (err) {
    log(`svc mcp: cannot move ${old} to ${dir} (${(err as Error).message}); starting with new state`);
  }
  return dir;
}
