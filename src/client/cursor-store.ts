// Where an attachment keeps its last processed cursor, so that a restart resumes where it stopped.
// A file by default (written atomically: temp file, fsync, rename); anything with load/save fits.

import { readFileSync } from 'node:fs';
import { open, rename, mkdir } from 'node:fs/promises';
import path from 'node:path';

/** Which attachment a cursor belongs to. */
export interface CursorKey {
  network_id: string;
  agent_id: string;
}

/** A pluggable cursor store: `save` must be durable when its promise resolves. */
export interface CursorStore {
  load(key: CursorKey): Promise<string | undefined>;
  save(key: CursorKey, cursor: string): Promise<void>;
}

/** The default file of an agent's cursor: `.svc/cursors/<network>/<agent>.json` under `dir`. */
export function defaultCursorFile(key: CursorKey, dir = process.cwd()): string {
  return path.resolve(dir, '.svc', 'cursors', key.network_id, `${key.agent_id}.json`);
}

/** Keeps cursors in memory only (a restart starts from the live head). */
export function memoryCursorStore(): CursorStore {
  const m = new Map<string, string>();
  return {
    load: async (k) => m.get(`${k.network_id}:${k.agent_id}`),
    save: async (k, c) => void m.set(`${k.network_id}:${k.agent_id}`, c),
  };
}

interface CursorFile {
  network_id: string;
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

/** A JSON file holding one agent's cursor; a file written for another agent or network is refused. */
export function fileCursorStore(file: string): CursorStore {
  const abs = path.resolve(file);
  return {
    async load(key) {
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
      return typeof v.cursor === 'string' && /^\d+$/.test(v.cursor) ? v.cursor : undefined;
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
