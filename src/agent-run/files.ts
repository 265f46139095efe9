// The files of a wake (#41 part 5): before the command runs, each file part of the waking
// messages is downloaded into a private temporary folder (mode 0700, made by mkdtemp), handed to
// the command as SVC_FILES_DIR and SVC_FILES (one path a line), and removed when the command
// ends, whatever its outcome. A file that cannot be fetched is left out and said in the log: the
// command still runs on the text.

import { mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SvcClient } from '../client/svc-client.js';
import { safeFileName } from '../client/files.js';
import type { Message } from '../protocol/types.js';

/** A file part as the wakes carry it. */
export interface WakeFile {
  file_id: string;
  name: string;
  content_type: string;
  size: number;
}

/** The file parts of these messages, in order, each file once. */
export function filesOf(messages: readonly Message[]): WakeFile[] {
  const seen = new Set<string>();
  const out: WakeFile[] = [];
  for (const m of messages)
    for (const part of m.parts) {
      const p = part as typeof part & { file_id?: unknown; name?: unknown; content_type?: unknown; size?: unknown };
      if (p.kind !== 'file' || typeof p.file_id !== 'string' || seen.has(p.file_id)) continue;
      seen.add(p.file_id);
      out.push({
        file_id: p.file_id,
        name: typeof p.name === 'string' ? p.name : p.file_id,
        content_type: typeof p.content_type === 'string' ? p.content_type : 'application/octet-stream',
        size: typeof p.size === 'number' ? p.size : 0,
      });
    }
  return out;
}

export interface FetchedFiles {
  /** The folder, or undefined when the wakes carry no file. */
  dir: string | undefined;
  /** Saved paths, in the order of the parts. */
  paths: string[];
  /** The environment the command gets for them. */
  env: Record<string, string>;
  /** Removes the folder and everything in it. */
  remove(): void;
}

/** Downloads the wakes' files into a fresh private folder (nothing is made when there are none). */
export async function fetchWakeFiles(client: SvcClient, files: readonly WakeFile[], log: (line: string) => void): Promise<FetchedFiles> {
  if (files.length === 0) return { dir: undefined, paths: [], env: {}, remove: () => {} };
  // mkdtemp makes the folder 0700: only this user reads what others sent.
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-agent-run-files-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const paths: string[] = [];
  const taken = new Set<string>();
  try {
    for (const f of files) {
      let name = safeFileName(f.name, f.file_id);
      // Two files of one name: the later ones get their position in front.
      for (let k = 2; taken.has(name); k++) name = `${k}-${safeFileName(f.name, f.file_id)}`;
      taken.add(name);
      const dest = path.join(dir, name);
      try {
        await client.files.download(f.file_id, createWriteStream(dest, { mode: 0o600 }));
        paths.push(dest);
      } catch (err) {
        rmSync(dest, { force: true });
        log(`file ${f.file_id} (${f.name}) could not be fetched: ${(err as Error).message}`);
      }
    }
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, paths, env: { SVC_FILES_DIR: dir, SVC_FILES: paths.join('\n') }, remove };
}
