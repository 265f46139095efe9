// Child processes of the benchmark: every one is registered here and stopped by stopAll(), also
// on a signal or an uncaught error, so a run never leaves a server behind.

import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

const children = new Set<ChildProcess>();

/**
 * `cmd args` run through sh with the soft file-descriptor limit raised to the hard one (`ulimit -n`),
 * for the processes holding thousands of sockets; `exec` keeps the pid and any IPC channel.
 */
export function withFdLimit(cmd: string, args: string[]): [string, string[]] {
  return ['/bin/sh', ['-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"', cmd, ...args]];
}

/** The hard limit on open files of processes started here (`ulimit -Hn`), or null when unknown. */
export function hardFdLimit(): number | null {
  try {
    const m = /^Max open files\s+\S+\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!m) return null;
    return m[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(m[1]);
  } catch {
    return null;
  }
}

/** Spawns and registers a child. */
export function launch(cmd: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Resolves with the child's exit code once it has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stop(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/** Stops every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => stop(c, 3000)));
}

/** Kills every child at once, synchronously (process exit path). */
export function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
}

/** Waits for a line matching `re` on the child's stdout; rejects on exit or after `ms`. */
export function waitForLine(child: ChildProcess, re: RegExp, ms: number, what: string): Promise<RegExpExecArray> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${what} did not start in ${ms / 1000}s:\n${out.slice(-2000)}`)), ms);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = re.exec(out);
      if (m) done(undefined, m);
    };
    const onExit = (code: number | null) => done(new Error(`${what} exited with ${code} before it was ready:\n${out.slice(-2000)}`));
    const done = (err?: Error, m?: RegExpExecArray) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(m!);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Drains a child's output into a bounded tail (so a full pipe never blocks it). */
export function tail(child: ChildProcess, keep = 8000): () => string {
  let out = '';
  const add = (d: Buffer) => {
    out = (out + d.toString()).slice(-keep);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => out;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in MB (from /proc), or null when unreadable. */
export function rssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used, in ms, from /proc; null when unreadable. */
export function cpuMs(pid: number | undefined): number | null {
  return pid ? (readStat(`/proc/${pid}/stat`)?.ms ?? null) : null;
}

/** CPU time (ms) of a process's main thread alone (its id is the pid); null when unreadable. */
export function mainThreadCpuMs(pid: number | undefined): number | null {
  return pid ? (readStat(`/proc/${pid}/task/${pid}/stat`)?.ms ?? null) : null;
}

/** The command name and user + system CPU time (ms) of a /proc `stat` file (a process's or one thread's). */
function readStat(file: string): { name: string; ms: number } | null {
  try {
    const stat = readFileSync(file, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const end = stat.lastIndexOf(')');
    const f = stat.slice(end + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, end), ms: ((Number(f[11]) + Number(f[12])) * 1000) / 100 };
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) of a server and all its children, reaped ones included: a PostgreSQL postmaster
 * and its backends. null when unreadable.
 */
export function treeCpuMs(rootPid: number | undefined): number | null {
  if (!rootPid) return null;
  const fields = (pid: number | string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  try {
    const root = fields(rootPid);
    // utime, stime, cutime, cstime (clock ticks)
    let ticks = Number(root[11]) + Number(root[12]) + Number(root[13]) + Number(root[14]);
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const f = fields(d);
        if (Number(f[1]) === rootPid) ticks += Number(f[11]) + Number(f[12]);
      } catch {
        // the process ended meanwhile; its time is in the root's cutime once reaped
      }
    }
    return (ticks * 1000) / 100;
  } catch {
    return null;
  }
}

/**
 * Seconds until process `pid` used under 50 ms of CPU in one second (at most `maxS`): a server
 * started on the bench loader's store has every message pending for search, and works that off
 * first.
 */
export async function untilIdle(pid: number | undefined, maxS = 300): Promise<number> {
  for (let s = 1; s <= maxS; s++) {
    const c0 = cpuMs(pid) ?? 0;
    await new Promise((r) => setTimeout(r, 1000));
    if ((cpuMs(pid) ?? 0) - c0 < 50) return s;
  }
  return maxS;
}

/** The machine's CPU time so far: all of it, the idle part and the part the hypervisor gave to others (clock ticks of /proc/stat's cpu line). */
export function hostTicks(): { idle: number; steal: number; all: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const all = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { idle: f[3]! + f[4]!, steal: f[7]!, all };
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) and name of each thread of a process, by thread id: the main thread's id is the
 * pid; Node names none of its threads (`node`, but the profiler's with --cpu-prof), so the others
 * are told apart by their share (GC helpers, the libuv pool's fdatasyncs, a worker thread).
 */
export function threadCpuMs(pid: number): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const t = readStat(`/proc/${pid}/task/${tid}/stat`);
    if (t) out.set(Number(tid), t);
  }
  return out;
}

/**
 * Starts measuring the machine's idle share; the function returned gives the idle percentage of
 * all CPU time since (null when /proc/stat is unreadable or no time passed).
 */
export function idleMeter(): () => number | null {
  const a = hostTicks();
  return () => {
    const b = hostTicks();
    return a && b && b.all > a.all ? Math.round((1000 * (b.idle - a.idle)) / (b.all - a.all)) / 10 : null;
  };
}
