// The operator warnings raised by real conditions: a server started from an install that was then
// upgraded on disk (stale-running-server), a store of a newer schema (refused at start, on sqlite
// and Postgres) or of an older one (migrated, with migration-risk), and a peer speaking another
// pair protocol (unsupported-protocol). Each shows in the network document and svc doctor. The
// servers run in the test process; `svc serve` processes where the install on disk or the refusal
// at start is what is tested.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { SCHEMA_VERSION as SQLITE_SCHEMA } from '../../src/store/sqlite/schema.js';
import { SCHEMA_VERSION as PG_SCHEMA, quoteIdent } from '../../src/store/postgres/schema.js';
import { VERSION } from '../../src/version.js';
import { cli, cleanEnv } from '../helpers/cli.js';
import { freshSchema, sql } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { startApp } from '../helpers/app.js';
import { copyInstall, eventually, SVC_BIN, testConfig, TOKENS, writeConfig, type Json, PROCESS_START_MS } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;

/** `svc serve` from `bin` until it listens; resolves its URL, or rejects with its output when it exits first. */
function serve(
  bin: string,
  configFile: string,
  env: Record<string, string> = {},
): Promise<{ url: string; proc: ChildProcess; output: () => string }> {
  const proc = spawn(process.execPath, [bin, 'serve', '--config', configFile], {
    cwd: path.dirname(configFile),
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc serve did not start:\n${out}`)), PROCESS_START_MS);
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /svc listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, proc, output: () => out });
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited with ${code}`), { code, output: out }));
    });
  });
}

const stop = (proc: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });

/** Starts serve expecting a refusal; returns its exit code and output. */
async function refused(configFile: string, env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  try {
    const s = await serve(SVC_BIN, configFile, env);
    await stop(s.proc);
    throw new Error(`svc serve started: ${s.output()}`);
  } catch (err) {
    const e = err as { code?: number; output?: string };
    if (e.output === undefined) throw err;
    return { code: e.code ?? -1, output: e.output };
  }
}

async function warningsOf(url: string): Promise<Json[]> {
  const r = await fetch(`${url}/v1/network`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return ((await r.json()) as Json).warnings;
}

/** Sets `meta.schema_version` in a stopped server's sqlite file (the store's own format). */
async function setSqliteSchema(file: string, version: number): Promise<void> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(file));
  db.run("UPDATE meta SET value = ? WHERE key = 'schema_version'", [String(version)]);
  writeFileSync(file, db.export());
  db.close();
}

const stale = suite('stale-running-server');

stale('a server whose install was upgraded on disk says so in its network document and in doctor', async () => {
  const install = mkdtempSync(path.join(tmpdir(), 'svc-install-'));
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-stale-'));
  let proc: ChildProcess | undefined;
  try {
    const bin = copyInstall(install);
    // The memory store: the warning does not depend on the store.
    const configFile = writeConfig(dir, testConfig({ store: { backend: 'memory' } }));
    const s = await serve(bin, configFile, { HOME: dir });
    proc = s.proc;
    assert.not.ok((await warningsOf(s.url)).some((w) => w.code === 'stale-running-server'));

    const pkg = JSON.parse(readFileSync(path.join(install, 'package.json'), 'utf8')) as Json;
    writeFileSync(path.join(install, 'package.json'), JSON.stringify({ ...pkg, version: '99.0.0' }));
    let w: Json;
    await eventually(
      async () => (w = (await warningsOf(s.url)).find((x) => x.code === 'stale-running-server')) !== undefined,
      10_000,
      'the warning',
    );
    assert.equal([w.severity, w.docs_url], ['warning', 'docs/warnings.md#stale-running-server']);
    assert.match(w.message, `runs svc ${VERSION}, and svc 99.0.0 is installed now`);
    assert.match(w.action, 'restart it to pick up the new one');

    const flags = ['doctor', '--config', configFile, '--url', s.url, '--token', ADMIN];
    const doctor = await cli(flags, { env: { HOME: dir } });
    assert.match(doctor.stdout, /server warning\s+stale-running-server: this server runs svc/);
    // The upgraded install's own CLI sees a server older than itself.
    const newer = await new Promise<string>((resolve) => {
      const p = spawn(process.execPath, [bin, ...flags], { env: cleanEnv({ HOME: dir }), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      p.once('close', () => resolve(out));
    });
    assert.match(newer, `version           stale-running-server: the server runs ${VERSION}, this CLI is 99.0.0`);
  } finally {
    if (proc) await stop(proc);
    rmSync(install, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});

stale.run();

const migration = suite('migration-risk');

migration(
  'a sqlite store of an older schema is migrated at start with a warning first, and the network document says so; one of a newer schema is refused with one line, and left as it was',
  async () => {
    const s = await startApp();
    try {
      assert.not.ok((await warningsOf(s.url)).some((w) => w.code === 'migration-risk'));
      await s.stop();
      await setSqliteSchema(path.join(s.dir, '.svc/svc.db'), SQLITE_SCHEMA - 1);
      await s.restart();
      assert.match(
        s.output(),
        `store: migrating ${path.join(s.dir, '.svc/svc.db')} from schema version ${SQLITE_SCHEMA - 1} to ${SQLITE_SCHEMA}`,
      );
      const w = (await warningsOf(s.url)).find((x) => x.code === 'migration-risk');
      assert.ok(w);
      assert.match(w.message, `from schema version ${SQLITE_SCHEMA - 1} to ${SQLITE_SCHEMA}`);
      assert.is(w.docs_url, 'docs/warnings.md#migration-risk');
      const doctor = await cli(['doctor', '--config', s.configFile, '--url', s.url, '--token', ADMIN], { env: { HOME: s.dir } });
      assert.match(doctor.stdout, /server warning\s+migration-risk: this start migrated the store/);
      // The next start finds nothing to migrate: the warning is gone.
      await s.restart();
      assert.not.ok((await warningsOf(s.url)).some((x) => x.code === 'migration-risk'));

      // The same store marked newer than this svc: refused before it changes anything.
      await s.stop();
      const db = path.join(s.dir, '.svc/svc.db');
      await setSqliteSchema(db, SQLITE_SCHEMA + 1);
      const before = readFileSync(db);
      const r = await refused(s.configFile);
      assert.is.not(r.code, 0);
      const line = `has schema version ${SQLITE_SCHEMA + 1} (migrated by svc ${VERSION}), newer than svc ${VERSION} supports (${SQLITE_SCHEMA}): run that newer svc, or restore a copy taken before the upgrade; nothing was changed`;
      assert.match(r.output, line);
      assert.is(r.output.split('\n').filter((l) => l.includes('newer than svc')).length, 1, r.output);
      assert.ok(readFileSync(db).equals(before), 'the store file is untouched');
    } finally {
      await s.dispose();
    }
  },
);

migration('a Postgres schema of a newer version is refused with one line, and left as it was', async () => {
  const pgs = await freshSchema();
  const env = { SVC_TEST_STORE_URL: pgs.url };
  const s = await startPgApp(pgs);
  try {
    await s.stop();
    const S = quoteIdent(pgs.schema);
    await sql(pgs.url, `INSERT INTO ${S}.schema_migrations (version) VALUES ($1)`, [PG_SCHEMA + 1]);
    const r = await refused(s.configFile, env);
    assert.is.not(r.code, 0);
    assert.match(
      r.output,
      `database schema ${pgs.schema} has schema version ${PG_SCHEMA + 1} (migrated by svc ${VERSION}), newer than svc ${VERSION} supports (${PG_SCHEMA})`,
    );
    assert.is(r.output.split('\n').filter((l) => l.includes('newer than svc')).length, 1, r.output);
    const versions = await sql<{ version: number }>(pgs.url, `SELECT version FROM ${S}.schema_migrations ORDER BY version`);
    assert.equal(
      versions.map((v) => v.version),
      [...Array.from({ length: PG_SCHEMA }, (_, i) => i + 1), PG_SCHEMA + 1],
    );
  } finally {
    await s.dispose();
    await pgs.drop();
  }
});

migration.run();

const protocol = suite('unsupported-protocol');

protocol('a peer speaking another pair protocol raises unsupported-protocol in the network document and doctor', async () => {
  const old = http.createServer((req, res) => {
    const doc = {
      id: 'old-net',
      name: 'Old Net',
      version: '0.0.9',
      protocols: { http: ['service.http.v1'], pair: ['service.pair.v0'] },
      capabilities: {
        event_stream: 'sse',
        attachment_protocol: 'websocket',
        human_ingress: true,
        direct_messages: true,
        message_pagination: 'cursor',
        pairings: true,
      },
    };
    res.writeHead(req.url === '/v1/network' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/v1/network' ? doc : { error: 'no', code: 'not_found' }));
  });
  await new Promise<void>((r) => old.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(old.address() as { port: number }).port}`;
  const s = await startApp({
    config: {
      store: { backend: 'memory' },
      server: { pairing_check_interval_ms: 300 },
      pairings: [{ id: 'to-old', remote_network_id: 'old-net', remote_base_url: url, token: 'old-pair-secret-0123456789' }],
    },
  });
  try {
    let w: Json;
    await eventually(
      async () => (w = (await warningsOf(s.url)).find((x) => x.code === 'unsupported-protocol')) !== undefined,
      15_000,
      'the warning',
    );
    assert.is(w.severity, 'error');
    assert.match(
      w.message,
      'pairing to-old: old-net (svc 0.0.9) speaks service.http.v1, service.pair.v0; this server speaks service.http.v1, service.pair.v1',
    );
    assert.is(w.docs_url, 'docs/warnings.md#unsupported-protocol');
    const doctor = await cli(['doctor', '--config', s.configFile, '--url', s.url, '--token', ADMIN], { env: { HOME: s.dir } });
    assert.match(doctor.stdout, /server warning\s+unsupported-protocol: pairing to-old/);
  } finally {
    await s.dispose();
    await new Promise((r) => old.close(r));
  }
});

protocol.run();
