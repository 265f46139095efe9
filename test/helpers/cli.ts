// Runs the `svc` CLI as a process (as an operator would; SVC_BIN, from the sources) and collects its exit code and output.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SVC_BIN } from './server.js';
// @ts-expect-error: a plain .mjs script without types
import { needPath } from '../../scripts/test-deps.mjs';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** Added to a clean environment (SVC_* of the test runner are removed). */
  env?: Record<string, string | undefined>;
}

/** The runner's environment without SVC_URL/SVC_TOKEN/SVC_CONFIG, with colour off and a HOME of this test run. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // HOME too: a CLI without a config keeps agent tokens under ~/.svc/agents, never the runner's own.
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', HOME: testHome() };
  for (const k of ['SVC_URL', 'SVC_TOKEN', 'SVC_CONFIG', 'FORCE_COLOR']) delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

let home: string | undefined;

/** A HOME for CLI processes of this test run (kept agent tokens land there, not in the runner's HOME); removed at exit. */
export function testHome(): string {
  if (home === undefined) {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-test-home-'));
    home = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return home;
}

/**
 * script(1) (Debian's bsdutils), which runs a command on a pseudo-terminal (`script -qfec CMD
 * /dev/null`), at the path scripts/test-deps.mjs checked and `npm test` installs. Throws when it is
 * missing, so a test that needs a terminal fails instead of passing untried.
 */
export function scriptBin(): string {
  const bin: string = needPath('SVC_SCRIPT');
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error(`script(1) not found at ${bin}: \`apt-get install bsdutils\` (\`npm test\` does this) or set SVC_SCRIPT to its path`);
  }
  return bin;
}

/** Spawns `svc ...args`; the process starts as it would from a shell (stdin closed, not a TTY). */
export function spawnCli(args: string[], o: CliOptions = {}): ChildProcess {
  return spawn(process.execPath, [SVC_BIN, ...args], {
    cwd: o.cwd ?? process.cwd(),
    env: cleanEnv(o.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `svc ...args` to its end. */
export function cli(args: string[], o: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawnCli(args, o);
    let stdout = '';
    let stderr = '';
    p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    p.once('error', reject);
    p.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port that was free a moment ago (for a server that must come back on the same address). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A URL where nothing listens: a port just released. */
export async function deadUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/**
 * The store of a server that is only the target of CLI commands. The CLI tests are about the
 * commands, not the engine (sqlite is tested under test/store/ and by the tests here that restart a
 * server or read its files), and a `svc serve` on the memory store starts on about half the CPU
 * time (0.4 s instead of 0.8 s; the cli area starts dozens of them).
 */
export const MEMORY_STORE = { backend: 'memory' } as const;

/** Switches a config `svc init` wrote to the memory store (MEMORY_STORE), keeping the rest of the file as it is. */
export function onMemoryStore(file: string): void {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(/^ {2}backend: sqlite\b/m, `  backend: ${MEMORY_STORE.backend}`);
  if (next === text) throw new Error(`${file}: no "backend: sqlite" line to switch`);
  writeFileSync(file, next, { mode: 0o600 });
}
