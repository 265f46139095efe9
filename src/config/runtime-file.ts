// The runtime file: what a running `svc serve` tells the client commands of its folder (the URL it
// really listens on, its pid, network id and version). It lives beside the config, in the same
// `.svc/` folder as the default store: `svc.yaml` -> `.svc/svc.server.json`. Written once the
// server listens, removed at a clean stop; a file whose process is gone is ignored, so a crash
// never leaves clients aiming at a dead address for long.

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What a running server writes about itself. */
export interface RuntimeInfo {
  /** The URL clients use (a wildcard bind becomes loopback). */
  url: string;
  pid: number;
  host: string;
  network_id: string;
  /** The network's unique id (GET /v1/network `uid`): clients key kept tokens and cursors by it. */
  network_uid?: string;
  version: string;
  /** Absolute path of the config the server runs with. */
  config: string;
  started_at: string;
}

/** Where the server started with `configFile` writes its runtime file. */
export function runtimeFilePath(configFile: string): string {
  const abs = path.resolve(configFile);
  const base = path.basename(abs).replace(/\.ya?ml$/i, '');
  return path.join(path.dirname(abs), '.svc', `${base}.server.json`);
}

/** Writes the runtime file (owner-only, atomically by rename). */
export function writeRuntimeFile(configFile: string, info: RuntimeInfo): string {
  const file = runtimeFilePath(configFile);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/** Removes the runtime file if it is still this process's own (a newer server may have replaced it). */
export function removeRuntimeFile(configFile: string, pid = process.pid): void {
  const file = runtimeFilePath(configFile);
  const info = parseRuntimeFile(file);
  if (info && info.pid !== pid) return;
  rmSync(file, { force: true });
}

/**
 * The running server of a config, or undefined when no runtime file is there, it is unreadable,
 * it was written on another host, or its process is gone.
 */
export function readRuntimeFile(configFile: string): RuntimeInfo | undefined {
  const info = parseRuntimeFile(runtimeFilePath(configFile));
  if (!info || info.host !== os.hostname() || !processAlive(info.pid)) return undefined;
  return info;
}

function parseRuntimeFile(file: string): RuntimeInfo | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const r = raw as Partial<RuntimeInfo> | null;
  if (!r || typeof r.url !== 'string' || typeof r.pid !== 'number' || typeof r.host !== 'string' || typeof r.network_id !== 'string')
    return undefined;
  return { version: '', config: '', started_at: '', ...r } as RuntimeInfo;
}

/**
 * Whether a process with this pid runs on this host (EPERM: it exists, owned by someone else). A
 * zombie does not: a process killed (kill -9) whose parent has not reaped it yet still answers
 * signal 0, but it holds no file, no port and runs no code, so the lock or runtime file it left
 * is as stale as a dead process's. Linux tells it by /proc/<pid>/stat; elsewhere the signal alone.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return procState(pid) !== 'Z';
}

/**
 * The fields of /proc/<pid>/stat from the third on (state, ppid, ... : field N is [N - 3]);
 * undefined where there is no /proc (off Linux) or no such process.
 */
export function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after the last one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The state letter of /proc/<pid>/stat (R, S, D, Z...); undefined where there is no /proc. */
export function procState(pid: number): string | undefined {
  return procStat(pid)?.[0] || undefined;
}
