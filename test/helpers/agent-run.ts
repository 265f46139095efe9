// `svc agent run` as a long-running process for black-box tests, and the small node script it runs
// per wake (it records each run in a file and answers after an optional delay).

import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnCli } from './cli.js';
import { eventually } from './server.js';

/** The per-wake command: appends {pid, env, prompt} to $RUNS_FILE, waits $DELAY_MS (in $SLOW_CONV only, when set), prints $REPLY_TEXT (or an answer naming the ids). */
export const BOT = `import { appendFileSync } from 'node:fs';
let input = '';
for await (const c of process.stdin) input += c;
const e = process.env;
appendFileSync(e.RUNS_FILE, JSON.stringify({ pid: process.pid, conv: e.SVC_CONVERSATION, key: e.SVC_SESSION_KEY, ids: e.SVC_MESSAGE_IDS, reply: e.SVC_REPLY_ID, from: e.SVC_FROM, prompt: input }) + '\\n');
// SLOW_CONV: only that conversation waits DELAY_MS.
await new Promise((r) => setTimeout(r, e.SLOW_CONV && e.SLOW_CONV !== e.SVC_CONVERSATION ? 0 : Number(e.DELAY_MS ?? 0)));
process.stdout.write(e.REPLY_TEXT ?? 'answer to ' + e.SVC_MESSAGE_IDS);
`;

export function writeBot(dir: string): string {
  const file = path.join(dir, 'bot.mjs');
  writeFileSync(file, BOT);
  return file;
}

export interface RunRecord {
  pid: number;
  conv: string;
  key: string;
  ids: string;
  reply: string;
  from: string;
  prompt: string;
}

export function runsOf(file: string): RunRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunRecord);
}

export interface AgentRunProc {
  proc: ChildProcess;
  stderr(): string;
  /** Waits for a log line matching. */
  waitLog(re: RegExp, ms?: number): Promise<string>;
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
}

/** Starts `svc agent run ARGS` and waits until it is attached. */
export async function startAgentRun(args: string[], env: Record<string, string>, cwd: string): Promise<AgentRunProc> {
  const proc = spawnCli(['agent', 'run', ...args], { env, cwd });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  proc.stdout!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = () =>
    new Promise<number | null>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
      proc.once('exit', (code) => resolve(code));
    });
  const p: AgentRunProc = {
    proc,
    stderr: () => err,
    waitLog: (re, ms = 20_000) =>
      eventually(
        () => {
          if (proc.exitCode !== null) throw new Error(`svc agent run exited ${proc.exitCode}:\n${err}`);
          return err.split('\n').find((l) => re.test(l)) ?? '';
        },
        ms,
        // Read when it fails: the log as it is then.
        () => `log line ${re} in:\n${err}`,
      ),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      return exited();
    },
    async kill9() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited();
    },
  };
  await p.waitLog(/attached as /, 30_000);
  return p;
}
