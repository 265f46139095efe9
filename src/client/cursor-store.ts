// Where an attachment keeps its last processed cursor, so that a restart resumes where it stopped.
// A file by default (written atomically: temp file, fsync, rename); anything with load/save fits.

import { existsSync, readFileSync } from 'node:fs';
import { open, rename, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { identityKey } from '../protocol/network-key.js';

/**
 * Which attachment a cursor belongs to. `network_uid` (GET /v1/network `uid`, from servers that have
 * one) tells apart two networks that share an id: a cursor of one is never resumed on the other.
 */
export interface CursorKey {
  network_id: string;
  network_uid?: string;
  agent_id: string;
}

/** A pluggable cursor store: `save` must be durable when its promise resolves. */
export interface CursorStore {
  load(key: CursorKey): Promise<string | undefined>;
  save(key: CursorKey, cursor: string): Promise<void>;
}

/**
 * The default file of an agent's cursor under `dir`: `.svc/cursors/<network>@<uid>/<agent>.json`,
 * or `.svc/cursors/<network>/<agent>.json` for a server without a uid (and as earlier releases kept it).
 */
export function defaultCursorFile(key: CursorKey, dir = process.cwd()): string {
  const folder = key.network_uid !== undefined ? identityKey(key.network_id, key.network_uid) : key.network_id;
  return path.resolve(dir, '.svc', 'cursors', folder, `${key.agent_id}.json`);
}

/** Keeps cursors in memory only (a restart starts from the live head). */
export function memoryCursorStore(): CursorStore {
  const m = new Map<string, string>();
  const k = (key: CursorKey) => `${key.network_id}:${key.network_uid ?? ''}:${key.agent_id}`;
  return {
    load: async (key) => m.get(k(key)),
    save: async (key, c) => void m.set(k(key), c),
  };
}

interface CursorFile {
  network_id: string;
  /** Absent in files of earlier releases (and of servers without a uid). */
  network_uid?: string;
  agent_id: string;
  cursor: string;
  updated_at: string;
}

export class CursorFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CursorFileError';
  }
}

/** A cursor file's cursor for `key`; undefined when the file does not exist. */
function readCursorFile(abs: string, key: CursorKey): string | undefined {
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CursorFileError(`${abs}: cannot read the cursor file: ${(err as Error).message}`);
  }
  let v: Partial<CursorFile>;
  try {
    v = JSON.parse(text) as Partial<CursorFile>;
  } catch {
    throw new CursorFileError(`${abs}: is not a cursor file (not JSON); remove it to start from the live head`);
  }
  if (v.network_id !== key.network_id || v.agent_id !== key.agent_id) {
    throw new CursorFileError(
      `${abs}: holds the cursor of agent ${String(v.agent_id)} on network ${String(v.network_id)}, not ${key.agent_id} on ${key.network_id}`,
    );
  }
  // Another network that shares the id: its cursor means nothing here. A file without a uid
  // (an earlier release) is taken as this network's, and saved with the uid from now on.
  if (v.network_uid !== undefined && key.network_uid !== undefined && v.network_uid !== key.network_uid) {
    throw new CursorFileError(
      `${abs}: holds the cursor of agent ${key.agent_id} on another network also called ${key.network_id} (uid ${String(v.network_uid)}, not ${key.network_uid}); use another file for this one`,
    );
  }
  return typeof v.cursor === 'string' && /^\d+$/.test(v.cursor) ? v.cursor : undefined;
}

/**
 * A JSON file holding one agent's cursor; a file written for another agent or network is refused.
 * `earlier`: where an earlier release kept it, read while `file` does not exist yet.
 */
export function fileCursorStore(file: string, earlier?: string): CursorStore {
  const abs = path.resolve(file);
  return {
    async load(key) {
      const cursor = readCursorFile(abs, key);
      if (cursor !== undefined || earlier === undefined || existsSync(abs)) return cursor;
      return readCursorFile(path.resolve(earlier), key);
    },
    async save(key, cursor) {
      const body: CursorFile = { ...key, cursor, updated_at: new Date().toISOString() };
      await mkdir(path.dirname(abs), { recursive: true });
      const tmp = `${abs}.${process.pid}.tmp`;
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(`${JSON.stringify(body)}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, abs);
    },
  };
}

/**
 * The store an attachment's `cursorStore` option names: false, memory; a string, that file; a store,
 * itself; none, the default file (keyed by the network's identity; while it does not exist, the one
 * an earlier release kept under the network id alone is read).
 */
export function cursorStoreOf(option: CursorStore | string | false | undefined, key: CursorKey): CursorStore {
  if (option === false) return memoryCursorStore();
  if (typeof option === 'string') return fileCursorStore(option);
  if (option) return option;
  const earlier = key.network_uid !== undefined ? defaultCursorFile({ network_id: key.network_id, agent_id: key.agent_id }) : undefined;
  return fileCursorStore(defaultCursorFile(key), earlier);
}
