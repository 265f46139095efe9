// Starts a real `svc serve` process on 127.0.0.1 port 0 with a real sqlite file in a temp folder,
// and talks HTTP to it: for tests that need a process (the CLI, crashes, locks, several instances,
// process output and exit codes). A test that needs only HTTP, SSE or WebSocket starts the app in
// its own process instead (startApp, test/helpers/app.ts). The process runs from the TypeScript
// sources (SVC_BIN), so no build is needed before a single file.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { type AnswerHeaders, httpCall } from './http-call.js';
import { checkResponse, type OpenApiDocument } from './openapi-check.js';

/** The OpenAPI document, fetched once per process from the first server that answers it (every server serves the same). */
let apiDoc: Promise<OpenApiDocument> | undefined;
function apiDocument(url: string): Promise<OpenApiDocument> {
  apiDoc ??= httpCall(`${url}/v1/openapi.json`, 'GET', {}).then((r) => {
    if (r.status !== 200) throw new Error(`GET /v1/openapi.json answered ${r.status}`);
    return JSON.parse(r.text) as OpenApiDocument;
  });
  apiDoc.catch(() => (apiDoc = undefined));
  return apiDoc;
}

/** The package's folder as this file sees it: the checkout, or a test run's copy of it (scripts/test-build.mjs). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The checkout itself (a run's copy links its files there): for git, and what must not be a copy. */
export const CHECKOUT = path.dirname(realpathSync(path.join(ROOT, 'package.json')));
/** The script every test runs as `svc` (`node SVC_BIN ...args`): test/helpers/svc.mjs, which runs
 * src/ through tsx, or in a run of scripts/run-tests.mjs the JavaScript it built (SVC_TEST_BIN). */
export const SVC_BIN = process.env.SVC_TEST_BIN || path.join(ROOT, 'test/helpers/svc.mjs');

/** Copies the sources and what they read into `dir`, an install of its own (a test upgrades it on
 * disk); returns the script that runs `svc` there through tsx. node_modules is linked, not copied.
 * The files are copied, not their links (a test run's copy of the checkout links them): a test
 * that edits the install must not edit the checkout. */
export function copyInstall(dir: string): string {
  for (const p of ['src', 'test/helpers/svc.mjs', 'schemas', 'templates', 'package.json']) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    cpSync(path.join(ROOT, p), path.join(dir, p), { recursive: true, dereference: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return path.join(dir, 'test/helpers/svc.mjs');
}

/** Static tokens most tests use (bearer mode). */
export const TOKENS = {
  admin: { id: 'admin', value: 'tok-admin-0123456789', scopes: ['observe', 'write', 'admin', 'attach'] },
  observer: { id: 'observer', value: 'tok-observer-0123456789', scopes: ['observe'] },
  writer: { id: 'writer', value: 'tok-writer-0123456789', scopes: ['write'] },
  attacher: { id: 'attacher', value: 'tok-attacher-0123456789', scopes: ['attach'] },
  pair: { id: 'pair', value: 'tok-pair-0123456789', scopes: ['pair'] },
  adminOnly: { id: 'admin-only', value: 'tok-adminonly-0123456789', scopes: ['admin'] },
  alphaOnly: { id: 'alpha-only', value: 'tok-alphaonly-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['alpha'] },
} as const;

export type Json = any;

export interface Res {
  status: number;
  body: Json;
  text: string;
  headers: AnswerHeaders;
}

export interface ReqOptions {
  token?: string;
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** What every test server offers, in a process of its own (startServer) or in the test process
 * (startApp in test/helpers/app.ts): its address, folder and config, HTTP calls, stop and restart. */
export interface HttpServer {
  url: string;
  port: number;
  dir: string;
  configFile: string;
  networkId: string;
  /** Everything the process wrote to stdout and stderr so far (in process: the log lines). */
  output(): string;
  req(method: string, p: string, o?: ReqOptions): Promise<Res>;
  get(p: string, token?: string): Promise<Res>;
  post(p: string, body: unknown, token?: string): Promise<Res>;
  /** A graceful stop; returns the exit code (in process: 0 once closed). */
  stop(): Promise<number | null>;
  /** Starts the server again on the same folder and config (a new port). */
  restart(): Promise<void>;
  /** Stops the server if running and removes the folder. */
  dispose(): Promise<void>;
}

/** A real `svc serve` process. */
export interface TestServer extends HttpServer {
  proc: ChildProcess;
  /** SIGTERM (graceful) and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill9(): Promise<void>;
}

export interface StartOptions {
  /** Config object merged over the test defaults (top-level keys replace, `server`/`auth`/`store`/`network` merge). */
  config?: Record<string, Json>;
  /** Reuse an existing folder (its svc.yaml is rewritten unless keepConfig). */
  dir?: string;
  keepConfig?: boolean;
  env?: Record<string, string>;
  /** Extra arguments for `svc serve`. */
  args?: string[];
}

/** The test default config: bearer mode with TOKENS, DMs and human ingress on, sqlite store. */
export function testConfig(overrides: Record<string, Json> = {}): Record<string, Json> {
  const base: Record<string, Json> = {
    network: { id: 'testnet', name: 'Test Net' },
    server: {
      listen_addr: '127.0.0.1:0',
      human_ingress: true,
      direct_messages: true,
      heartbeat_interval_ms: 30000,
      // Every test client is 127.0.0.1 and many tests check 401s by the dozen: the default limit on
      // failed authentications (20 per minute per address) is raised here and tested on its own
      // (test/http/auth-failure-limit.test.ts). A test that sets server.limits gets the default again.
      limits: { auth_failures_per_minute: 1_000_000 },
    },
    store: { backend: 'sqlite', path: '.svc/svc.db' },
    auth: {
      mode: 'bearer',
      public_read: false,
      agent_registration: 'token',
      tokens: Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes], ...('agents' in t ? { agents: [...t.agents] } : {}) })),
    },
    rooms: [],
    pairings: [],
  };
  for (const [k, v] of Object.entries(overrides)) {
    base[k] =
      ['server', 'auth', 'store', 'network'].includes(k) && v && typeof v === 'object' && !Array.isArray(v) ? { ...base[k], ...v } : v;
  }
  return base;
}

export function writeConfig(dir: string, config: Record<string, Json>): string {
  const file = path.join(dir, 'svc.yaml');
  writeFileSync(file, stringify(config), { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/**
 * Folders startServer made and no dispose removed yet: a test that stops its server without
 * disposing it, replaces it, or whose server never started would leave them in the temp folder.
 * They go when the test process exits (each test file runs in a process of its own).
 */
const madeDirs = new Set<string>();
process.once('exit', () => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/** A new temp folder for a test server, removed when the test process exits unless removeDir took it first. */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-test-'));
  madeDirs.add(dir);
  return dir;
}

/** Removes a folder tempDir made. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  madeDirs.delete(dir);
}

/**
 * How long a test waits for a `svc` process to say it listens. It bounds a hang; it is not a speed
 * target (the bench has those): during a full run on 2 cores, four test files each start processes
 * and a start has taken over 15 s.
 */
export const PROCESS_START_MS = 60_000;

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dir = opts.dir ?? tempDir();
  const config = testConfig(opts.config);
  const configFile = opts.keepConfig ? path.join(dir, 'svc.yaml') : writeConfig(dir, config);
  let out = '';
  let proc!: ChildProcess;
  let port = 0;

  const launch = async () => {
    proc = spawn(process.execPath, [SVC_BIN, 'serve', '--config', configFile, ...(opts.args ?? [])], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    port = await new Promise<number>((resolve, reject) => {
      let first = '';
      // Not left running: a server that listens after the test gave up would outlive the test.
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`svc serve did not start in ${PROCESS_START_MS / 1000} s:\n${out}`));
      }, PROCESS_START_MS);
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        first += d.toString();
        const m = /svc listening on http:\/\/[^:]+:(\d+)/.exec(first);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`svc serve exited with ${code} before listening:\n${out}`));
      });
    });
  };
  await launch();

  const exited = () =>
    new Promise<number | null>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
      proc.once('exit', (code) => resolve(code));
    });

  const server: TestServer = {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    dir,
    configFile,
    networkId: String((config.network as { id: string }).id),
    get proc() {
      return proc;
    },
    output: () => out,
    ...requester(() => `http://127.0.0.1:${port}`),
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
    async restart() {
      await server.stop();
      await launch();
    },
    async dispose() {
      await server.stop();
      if (!opts.dir) removeDir(dir);
    },
  };
  return server;
}

/**
 * The HTTP calls of a test server at `url()` (read at each call: a restart changes the port). Every
 * JSON answer a test receives must match the OpenAPI document: a shape change fails until the
 * document changes too.
 */
export function requester(url: () => string): Pick<HttpServer, 'req' | 'get' | 'post'> {
  const r: Pick<HttpServer, 'req' | 'get' | 'post'> = {
    async req(method, p, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | Buffer | undefined;
      if (o.raw !== undefined) body = o.raw;
      else if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await httpCall(`${url()}${p}`, method, headers, body);
      const text = res.text;
      let parsed: Json;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (
        parsed !== undefined &&
        (res.headers.get('content-type') ?? '').includes('application/json') &&
        !p.startsWith('/v1/openapi.json')
      ) {
        checkResponse(await apiDocument(url()), method, p, res.status, parsed);
      }
      return { status: res.status, body: parsed, text, headers: res.headers };
    },
    get: (p, token) => r.req('GET', p, token ? { token } : {}),
    post: (p, body, token) => r.req('POST', p, { body, ...(token ? { token } : {}) }),
  };
  return r;
}

/** A message send body for a room. */
export function roomMessage(room: string, from: string, text: string, extra: Record<string, Json> = {}): Record<string, Json> {
  return { target: { kind: 'room', room_id: room }, from: { type: 'agent', id: from }, parts: [{ kind: 'text', text }], ...extra };
}

/** Waits until `fn` returns a truthy value, polling; throws after `ms`. */
export async function eventually<T>(fn: () => T | Promise<T>, ms = 5000, what: string | (() => string) = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}${last ? `: ${String(last)}` : ''}`);
}
