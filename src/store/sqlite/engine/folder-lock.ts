// The lock that makes one process at a time the writer of a sqlite store. Two writers on one store
// lose data: each keeps its own image in memory, and the one that stops last writes it over
// `svc.db` and deletes the journal the other appended to. `svc serve`, `svc store recover` and
// `svc store copy` take it before they read anything of the store, and refuse when it is held.
//
// The lock is a file beside the store, `<store.path>.lock` (`.svc/svc.db.lock`), holding who took
// it (pid, host, boot id, start time, command; the URL once the server listens). It appears with
// its whole content at once (a link of a complete temporary file), so a reader never sees half a
// lock. A lock whose process is gone (same host, and the pid not alive, a zombie not yet reaped by
// its parent, alive as a process that started at another time, or from before the host restarted)
// is taken over; a lock from another
// host never is, since its pid says nothing here.

import { createHash } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive, procStat, procState } from '../../../config/runtime-file.js';

/** What a lock file says about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's id of the current boot (Linux), when known: a pid from an earlier boot is gone. */
  boot_id?: string;
  /** When the kernel started the process (Linux, clock ticks since boot): tells a reused pid apart. */
  proc_start?: string;
  started_at: string;
  /** `svc serve`, `svc store copy`, `svc store recover`. */
  command: string;
  /** The URL the server listens on, once it does. */
  url?: string;
}

/** Who asks for the lock. */
export interface LockClaimant {
  pid: number;
  host: string;
  boot_id?: string;
  proc_start?: string;
}

/** What this host says now about the holder's pid: alive, and when that process started (when known). */
export interface PidState {
  alive: boolean;
  /** Killed but not yet reaped by its parent (Linux): it holds nothing, so it counts as gone. */
  zombie?: boolean;
  proc_start?: string;
}

/** What to do about the lock file found (or not) at the store. */
export type LockDecision =
  | { kind: 'take' }
  | { kind: 'takeover'; reason: string }
  | { kind: 'refuse'; code: 'store_locked' | 'store_locked_other_host' | 'store_lock_unreadable'; reason: string };

/**
 * Decides from the lock file's content (undefined: no file; null: a file that is not a lock), the
 * claimant and the state of the holder's pid here.
 */
export function decideLock(held: LockHolder | null | undefined, me: LockClaimant, pid: PidState): LockDecision {
  if (held === undefined) return { kind: 'take' };
  if (held === null) return { kind: 'refuse', code: 'store_lock_unreadable', reason: 'the lock file is not one svc wrote' };
  if (held.host !== me.host) return { kind: 'refuse', code: 'store_locked_other_host', reason: `held by another host, ${held.host}` };
  // Our own pid in a lock we do not hold yet: an earlier run of a process that always gets this pid
  // (a container's pid 1) left it.
  if (held.pid === me.pid) return { kind: 'takeover', reason: `pid ${held.pid} is this process: the lock was left by an earlier run` };
  if (held.boot_id && me.boot_id && held.boot_id !== me.boot_id)
    return { kind: 'takeover', reason: `pid ${held.pid} ran before this host restarted` };
  if (!pid.alive)
    return { kind: 'takeover', reason: `pid ${held.pid} is gone${pid.zombie ? ' (exited, not yet reaped by its parent)' : ''}` };
  if (held.proc_start && pid.proc_start && held.proc_start !== pid.proc_start)
    return { kind: 'takeover', reason: `pid ${held.pid} is another process now` };
  return { kind: 'refuse', code: 'store_locked', reason: 'held by a running process' };
}

/** `svc serve (pid 123 on host h since 2026-..., http://127.0.0.1:8787)` */
export function describeHolder(h: LockHolder): string {
  return `${h.command} (pid ${h.pid} on host ${h.host} since ${h.started_at}${h.url ? `, ${h.url}` : ''})`;
}

/** The one line a refused command prints (after its `svc CMD: ` prefix). */
export function refusalLine(
  store: string,
  lockFile: string,
  held: LockHolder | null,
  d: Extract<LockDecision, { kind: 'refuse' }>,
): string {
  if (d.code === 'store_lock_unreadable' || !held) {
    return `the store ${store} is locked by ${lockFile}, which is not a lock svc wrote; if no svc process uses this store, remove that file`;
  }
  if (d.code === 'store_locked_other_host') {
    return `the store ${store} is in use by ${describeHolder(held)}; a lock from another host is never taken over: check on ${held.host} that no svc uses this store, then remove ${lockFile}`;
  }
  return `the store ${store} is in use by ${describeHolder(held)}; stop it first (one process at a time may use a sqlite store)`;
}

/** Parses a lock file's text: null when it is not a lock. */
export function parseLock(text: string): LockHolder | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const r = raw as Partial<LockHolder> | null;
  if (!r || typeof r !== 'object' || typeof r.pid !== 'number' || typeof r.host !== 'string') return null;
  return {
    pid: r.pid,
    host: r.host,
    ...(typeof r.boot_id === 'string' ? { boot_id: r.boot_id } : {}),
    ...(typeof r.proc_start === 'string' ? { proc_start: r.proc_start } : {}),
    started_at: typeof r.started_at === 'string' ? r.started_at : 'an unknown time',
    command: typeof r.command === 'string' ? r.command : 'svc',
    ...(typeof r.url === 'string' ? { url: r.url } : {}),
  };
}

/** The lock file of a sqlite store. */
export function lockFilePath(storePath: string): string {
  return `${path.resolve(storePath)}.lock`;
}

/** A lock this process holds. */
export interface StoreLock {
  readonly file: string;
  readonly holder: LockHolder;
  /** Records the URL the server listens on (for the refusal a second server prints). */
  setUrl(url: string): void;
  /** Removes the lock if it is still this process's own. */
  release(): void;
}

export type LockResult =
  | { ok: true; lock: StoreLock; tookOver?: string }
  | { ok: false; code: Extract<LockDecision, { kind: 'refuse' }>['code'] | 'store_lock_busy' | 'store_lock_failed'; message: string };

export interface AcquireOptions {
  command: string;
  /** Test seam: the host's identity (defaults: this host, this process). */
  me?: LockClaimant;
}

/** Takes the lock of a sqlite store, taking over a lock whose process is gone. */
export async function acquireStoreLock(storePath: string, o: AcquireOptions): Promise<LockResult> {
  const store = canonical(storePath);
  const file = lockFilePath(store);
  const me = o.me ?? thisProcess();
  const holder: LockHolder = {
    pid: me.pid,
    host: me.host,
    ...(me.boot_id ? { boot_id: me.boot_id } : {}),
    ...(me.proc_start ? { proc_start: me.proc_start } : {}),
    started_at: new Date().toISOString(),
    command: o.command,
  };
  const text = `${JSON.stringify(holder)}\n`;
  const tmp = `${file}.${me.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, text, { mode: 0o644 });
  } catch (err) {
    return {
      ok: false,
      code: 'store_lock_failed',
      message: `cannot write the lock ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    };
  }
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      // link fails when the name exists: of two processes only one creates the lock.
      try {
        linkSync(tmp, file);
        return { ok: true, lock: heldLock(file, holder) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const seen = readOrUndefined(file);
      if (seen === undefined) continue; // released in between: try again
      const held = parseLock(seen);
      const d = decideLock(held, me, held ? pidState(held.pid) : { alive: false });
      if (d.kind === 'take') continue;
      if (d.kind === 'refuse') return { ok: false, code: d.code, message: refusalLine(store, file, held, d) };
      // Takeover. Every process that judged this same stale content needs the same marker, and
      // only one creates it; the winner re-reads the lock under it, so a slower one that finds
      // the marker gone later sees a lock that changed and judges again (and is refused).
      const marker = `${file}.takeover-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`;
      try {
        closeSync(openSync(marker, 'wx'));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        await sleep(20);
        continue;
      }
      let replaced = false;
      try {
        if (readOrUndefined(file) === seen) {
          renameSync(tmp, file);
          replaced = true;
        }
      } finally {
        rmSync(marker, { force: true });
      }
      if (replaced && readOrUndefined(file) === text)
        return { ok: true, lock: heldLock(file, holder), tookOver: `${describeHolder(held!)}: ${d.reason}` };
      if (replaced) return { ok: false, code: 'store_lock_busy', message: `the lock ${file} changed while it was taken over; try again` };
    }
    return {
      ok: false,
      code: 'store_lock_busy',
      message: `another process keeps taking over the lock ${file}; if none runs, remove ${file}.takeover-* and try again`,
    };
  } catch (err) {
    return {
      ok: false,
      code: 'store_lock_failed',
      message: `cannot take the lock ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    };
  } finally {
    rmSync(tmp, { force: true });
  }
}

function heldLock(file: string, initial: LockHolder): StoreLock {
  let holder = initial;
  const mine = () => {
    const now = parseLock(readOrUndefined(file) ?? '');
    return now !== null && now.pid === holder.pid && now.host === holder.host && now.started_at === holder.started_at;
  };
  return {
    file,
    get holder() {
      return holder;
    },
    setUrl(url) {
      if (!mine()) return;
      holder = { ...holder, url };
      const tmp = `${file}.${holder.pid}.url.tmp`;
      writeFileSync(tmp, `${JSON.stringify(holder)}\n`, { mode: 0o644 });
      renameSync(tmp, file);
    },
    release() {
      if (mine()) rmSync(file, { force: true });
    },
  };
}

/** The store path with its folder's symlinks resolved, so two spellings of one store share a lock. */
function canonical(storePath: string): string {
  const abs = path.resolve(storePath);
  const dir = path.dirname(abs);
  return existsSync(dir) ? path.join(realpathSync(dir), path.basename(abs)) : abs;
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** This process as a claimant: pid, host name and (on Linux) the boot id and its start time. */
export function thisProcess(): LockClaimant {
  let boot_id: string | undefined;
  try {
    boot_id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    // not Linux: the pid check alone
  }
  const proc_start = procStart(process.pid);
  return { pid: process.pid, host: os.hostname(), ...(boot_id ? { boot_id } : {}), ...(proc_start ? { proc_start } : {}) };
}

/** Whether `pid` is alive here and, on Linux, when its process started. */
export function pidState(pid: number): PidState {
  if (!processAlive(pid)) return { alive: false, ...(procState(pid) === 'Z' ? { zombie: true } : {}) };
  const proc_start = procStart(pid);
  return { alive: true, ...(proc_start ? { proc_start } : {}) };
}

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot); undefined off Linux. */
function procStart(pid: number): string | undefined {
  return procStat(pid)?.[19] || undefined;
}
