// One command's run once started (launcher.ts starts it): prompt on stdin, stdout and stderr
// collected, a timeout that stops the whole process group (SIGTERM, then SIGKILL after a grace period).

import type { ChildProcessWithoutNullStreams } from 'node:child_process';

export interface ProcessResult {
  /** Exit code, or undefined when it was killed or never started. */
  code: number | undefined;
  signal?: string;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** It could not start (ENOENT...). */
  spawnError?: string;
  durationMs: number;
}

const KILL_GRACE_MS = 3000;
/** Output kept per stream: a reply is a message, not a log. */
const OUTPUT_MAX = 1024 * 1024;

export interface Running {
  done: Promise<ProcessResult>;
  /** Stops it (process group), e.g. on shutdown. */
  stop(): void;
}

/** `input` may still be on its way (the context is read while the command starts): stdin waits for it. */
export interface RunInput {
  input: string | Promise<string>;
  /** Added to this process's environment. */
  env: Record<string, string>;
  timeoutMs: number;
}

/**
 * Feeds, collects and times out a started command. It leads its own process group (spawned
 * `detached`), so a timeout stops what it started too (a shell's children).
 */
export function watch(child: ChildProcessWithoutNullStreams, o: Omit<RunInput, 'env'>): Running {
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  const killGroup = (sig: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  let grace: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup('SIGTERM');
    grace ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, o.timeoutMs);
  child.stdout.on('data', (d: Buffer) => {
    if (stdout.length < OUTPUT_MAX) stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < OUTPUT_MAX) stderr += d.toString();
  });
  child.stdin.on('error', () => undefined); // a command that does not read its stdin
  void Promise.resolve(o.input).then(
    (text) => child.stdin.end(text),
    () => child.stdin.end(),
  );
  const done = new Promise<ProcessResult>((resolve) => {
    let spawnError: string | undefined;
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      resolve({
        code: code ?? undefined,
        ...(signal ? { signal } : {}),
        stdout,
        stderr,
        timedOut,
        ...(spawnError ? { spawnError } : {}),
        durationMs: Date.now() - started,
      });
    };
    child.once('error', (err) => {
      spawnError = err.message;
      if (child.pid === undefined) finish(null, null);
    });
    child.once('close', finish);
  });
  return { done, stop };
}
