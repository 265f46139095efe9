// A real PostgreSQL for tests. `SVC_TEST_PG_URL` names an existing server when set (scripts/run-tests.mjs
// starts one cluster per run and passes it this way to every test process); otherwise a
// throwaway cluster is started from Debian's binaries (initdb into a temp folder, pg_ctl on a free
// port on 127.0.0.1, its unix socket inside the folder), shared by every test file of the process
// and removed when the process ends. Each test takes a fresh schema. A missing PostgreSQL fails
// loudly: a test that needs it never skips.

import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
// @ts-expect-error: a plain .mjs script without types
import { needPath } from '../../scripts/test-deps.mjs';

export interface PgCluster {
  /** Connection URL of the cluster's `postgres` database (superuser, trust auth when throwaway). */
  url: string;
  /** True when this process started the cluster (so it may stop and start it). */
  own: boolean;
  /** Stops the server (fast shutdown) keeping its data; only for an own cluster. */
  stop(): void;
  /** Starts a stopped own cluster again on the same port. */
  start(): void;
  /** Stops the server and removes its folder. */
  destroy(): void;
  /** The server's data folder, when this process started it (the benchmark reads its CPU time). */
  dataDir?: string;
}

export interface PgSchema {
  /** Connection URL (same database as the cluster). */
  url: string;
  /** A new, empty schema only this test uses. */
  schema: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

const MISSING =
  'PostgreSQL server binaries not found (looked for initdb under /usr/lib/postgresql/*/bin and at SVC_TEST_PG_INITDB). ' +
  'Install them (`apt-get install postgresql`; `npm test` does this through scripts/test-deps.mjs) or set SVC_TEST_PG_URL ' +
  'to a server the tests may create schemas in (the outage tests still need the binaries: they stop their own server).';

/**
 * The folder holding initdb/pg_ctl: that of SVC_TEST_PG_INITDB, else the highest installed Debian
 * postgresql version's, found as scripts/test-deps.mjs (which installs it for `npm test`) finds it.
 */
export function pgBinDir(): string {
  const initdb: string = needPath('SVC_TEST_PG_INITDB');
  if (!existsSync(initdb)) {
    const set = process.env.SVC_TEST_PG_INITDB;
    throw new Error(set ? `${MISSING} (SVC_TEST_PG_INITDB=${set} does not exist)` : MISSING);
  }
  return path.dirname(initdb);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

// initdb refuses to run as root, so as root the cluster belongs to the `postgres` account.
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(bin: string, args: string[], what: string): SpawnSyncReturns<string> {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.error || r.status !== 0) {
    throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  }
  return r;
}

export interface ClusterOptions {
  /** Keep fsync and full-page writes on, as a production server runs (the benchmark). */
  durable?: boolean;
  /** max_connections (default 300; a cluster shared by parallel test processes needs more). */
  maxConnections?: number;
  /** More server settings (`-c name=value`), e.g. shared_preload_libraries for a probe. */
  settings?: Record<string, string>;
}

/** Starts a new throwaway cluster owned by this process. */
export async function startOwnCluster(o: ClusterOptions = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-pg-'));
  if (asRoot) {
    // A missing `postgres` account is as loud as missing binaries: the package creates it.
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (pw.status !== 0) throw new Error(`${MISSING} (running as root, and there is no postgres account to run them as)`);
    const uid = Number(pw.stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const data = path.join(dir, 'data');
  run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'], 'initdb');
  const log = path.join(dir, 'server.log');
  // fsync off: only a machine crash could lose data, and tests never crash the machine; the
  // database server itself still stops and restarts for real.
  const fast = o.durable ? '' : ' -c fsync=off -c full_page_writes=off';
  const more = Object.entries(o.settings ?? {}).map(([k, v]) => ` -c ${k}=${v}`);
  const opts = `-h 127.0.0.1 -k ${dir}${fast} -c max_connections=${o.maxConnections ?? 300} -c shared_buffers=${o.durable ? '128MB' : '32MB'}${more.join('')}`;
  let port = 0;
  const start = () =>
    run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', '-o', `-p ${port} ${opts}`, 'start'], 'pg_ctl start');
  const stop = (mode: 'fast' | 'immediate') => run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop'], 'pg_ctl stop');

  // Another process may take the port between probing and binding; try a few.
  let lastErr: unknown;
  for (let i = 0; i < 5; i++) {
    port = await freePort();
    try {
      start();
      lastErr = undefined;
      break;
    } catch (err) {
      lastErr = err;
    }
  }
  if (lastErr) {
    rmSync(dir, { recursive: true, force: true });
    throw lastErr;
  }

  // If this process dies without running its exit hook (SIGKILL), the watchdog stops the cluster.
  const ctl = path.join(bin, 'pg_ctl');
  const stopCmd = asRoot ? `runuser -u postgres -- ${ctl} -D ${data} -m immediate stop` : `${ctl} -D ${data} -m immediate stop`;
  const watchdog = spawn(
    'sh',
    ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stopCmd} >/dev/null 2>&1; rm -rf ${dir}`],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();

  let destroyed = false;
  let running = true;
  const cluster: PgCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    own: true,
    dataDir: data,
    stop() {
      if (!running) return;
      stop('fast');
      running = false;
    },
    start() {
      if (running) return;
      start();
      running = true;
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        if (running) stop('immediate');
      } catch {
        // The folder goes regardless; a server still running would be stopped by the watchdog.
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
      try {
        if (watchdog.pid) process.kill(watchdog.pid);
      } catch {
        // already gone
      }
    },
  };
  process.once('exit', () => cluster.destroy());
  return cluster;
}

let shared: Promise<PgCluster> | undefined;

/** The cluster tests share: SVC_TEST_PG_URL, or one throwaway cluster per test process. */
export function sharedCluster(): Promise<PgCluster> {
  const url = process.env.SVC_TEST_PG_URL;
  if (url) {
    const notOwn = () => {
      throw new Error('SVC_TEST_PG_URL names an external server; this test needs a cluster it can stop (startOwnCluster)');
    };
    return Promise.resolve({ url, own: false, stop: notOwn, start: notOwn, destroy: () => {} });
  }
  shared ??= startOwnCluster();
  return shared;
}

let counter = 0;

/** Creates a fresh empty schema on `cluster` (default: the shared one). */
export async function freshSchema(cluster?: PgCluster): Promise<PgSchema> {
  const c = cluster ?? (await sharedCluster());
  const schema = `svc_t_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  await sql(c.url, `CREATE SCHEMA ${schema}`);
  return {
    url: c.url,
    schema,
    drop: async () => {
      await sql(c.url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/** Runs one statement on a short-lived connection and returns its rows. */
export async function sql<T extends Record<string, unknown> = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A login role that uses `s`'s tables but owns none of them: `all` may read and write them (and
 * create in the schema), `read` only read them. `url` connects as it; `drop` removes it.
 */
export async function guestRole(s: PgSchema, name: string, access: 'all' | 'read'): Promise<{ url: string; drop(): Promise<void> }> {
  await sql(s.url, `CREATE ROLE ${name} LOGIN`);
  const grants =
    access === 'all'
      ? [
          `GRANT USAGE, CREATE ON SCHEMA ${s.schema} TO ${name}`,
          `GRANT ALL ON ALL TABLES IN SCHEMA ${s.schema} TO ${name}`,
          `GRANT ALL ON ALL SEQUENCES IN SCHEMA ${s.schema} TO ${name}`,
        ]
      : [`GRANT USAGE ON SCHEMA ${s.schema} TO ${name}`, `GRANT SELECT ON ALL TABLES IN SCHEMA ${s.schema} TO ${name}`];
  const drop = async () => {
    await sql(s.url, `DROP OWNED BY ${name}`);
    await sql(s.url, `DROP ROLE ${name}`);
  };
  try {
    for (const g of grants) await sql(s.url, g);
  } catch (err) {
    await drop();
    throw err;
  }
  const url = new URL(s.url);
  url.username = name;
  return { url: url.toString(), drop };
}
