// Export and import across backends (#40 part 5), through the `svc` CLI with a real PostgreSQL:
// a sqlite network exported and imported into a Postgres schema exports the same lines and serves
// the same reads; exported from Postgres and imported into another schema, and into a new sqlite
// store, the same again. Import refuses a schema that holds a network, and one whose file turns
// out damaged after some pages leaves the schema as empty as it found it. The servers run in the
// test process; the CLI finds them by their runtime files.

import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { freshSchema, sql, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { startApp } from '../helpers/app.js';
import { tempDir, testConfig, writeConfig, type HttpServer } from '../helpers/server.js';
import { comparable, CONFIG, exportTo, fill, ofType, reads } from './fixture.js';

const t = suite('svc export and svc import across sqlite and PostgreSQL');

const schemas: PgSchema[] = [];
const servers: HttpServer[] = [];
let work: string;
let before: unknown;
let gen: string;
let fromSqlite: string[];
let fromPg: string[];

t.before(async () => {
  work = tempDir();
  schemas.push(await freshSchema(), await freshSchema());
});
t.after(async () => {
  for (const s of servers) await s.dispose();
  for (const s of schemas) await s.drop();
});

/** A config folder on schema `s` (not started). */
function pgTarget(s: PgSchema): { dir: string; config: string; env: Record<string, string> } {
  const dir = tempDir();
  return { dir, config: writeConfig(dir, testConfig({ ...CONFIG, store: pgStore(s) })), env: { SVC_TEST_STORE_URL: s.url } };
}

t('a sqlite export imported into Postgres exports the same lines and serves the same reads', async () => {
  const lite = await startApp({ config: CONFIG });
  servers.push(lite);
  gen = await fill(lite);
  before = await reads(lite);
  fromSqlite = await exportTo(lite.configFile, path.join(work, 'lite.jsonl'), ['--with-secrets']);
  await lite.stop();

  const target = pgTarget(schemas[0]!);
  const r = await cli(['import', path.join(work, 'lite.jsonl'), '--config', target.config], { env: target.env });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^imported network testnet into postgres:\/\/\S+ schema \S+: 2 rooms, 2 agents, 6 messages/);
  const pg = await startApp({ dir: target.dir, config: { ...CONFIG, store: pgStore(schemas[0]!) }, env: target.env });
  servers.push(pg);
  assert.equal(await reads(pg), before);
  fromPg = await exportTo(pg.configFile, path.join(work, 'pg.jsonl'), ['--with-secrets'], target.env);
  assert.equal(comparable(fromPg), comparable(fromSqlite));
  // The agent's token came along.
  const hidden = await pg.get('/v1/rooms/hidden/messages', gen);
  assert.is(hidden.status, 200, hidden.text);

  // A second import into the same schema is refused, and changes nothing.
  const again = await cli(['import', path.join(work, 'lite.jsonl'), '--config', target.config], { env: target.env });
  assert.is(again.code, 1);
  assert.match(
    again.stderr,
    /the target schema already holds a network \(2 rooms, 2 agents, 6 messages, \d+ events\).*nothing was imported/,
  );
  await pg.stop();
});

t('a Postgres export imported into another schema and into sqlite exports the same lines', async () => {
  const target = pgTarget(schemas[1]!);
  const r = await cli(['import', path.join(work, 'pg.jsonl'), '--config', target.config], { env: target.env });
  assert.is(r.code, 0, r.stderr);
  const pg2 = await startApp({ dir: target.dir, config: { ...CONFIG, store: pgStore(schemas[1]!) }, env: target.env });
  servers.push(pg2);
  assert.equal(
    comparable(await exportTo(pg2.configFile, path.join(work, 'pg2.jsonl'), ['--with-secrets'], target.env)),
    comparable(fromPg),
  );
  await pg2.stop();

  const dir = tempDir();
  const config = writeConfig(dir, testConfig(CONFIG));
  const l = await cli(['import', path.join(work, 'pg.jsonl'), '--config', config]);
  assert.is(l.code, 0, l.stderr);
  const lite = await startApp({ dir, config: CONFIG });
  servers.push(lite);
  assert.equal(await reads(lite), before);
  assert.equal(comparable(await exportTo(lite.configFile, path.join(work, 'lite2.jsonl'), ['--with-secrets'])), comparable(fromSqlite));
  await lite.stop();
});

t('a file damaged after its first pages leaves the Postgres schema empty', async () => {
  const s = await freshSchema();
  schemas.push(s);
  const target = pgTarget(s);
  // Damage the last record line: every page of messages and events was written before it is read.
  const lines = [...fromPg];
  const at = lines.length - 2;
  lines[at] = '{"type":"room"}';
  const file = path.join(work, 'damaged.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  assert.ok(ofType(lines, 'message').length > 0);
  const r = await cli(['import', file, '--config', target.config], { env: target.env });
  assert.is(r.code, 1);
  assert.match(r.stderr, new RegExp(`line ${at + 1}: a room line needs room \\(object\\); the file is damaged; nothing was imported`));
  for (const table of ['messages', 'events', 'rooms', 'agents']) {
    const [row] = await sql<{ n: string }>(s.url, `SELECT count(*) AS n FROM ${s.schema}.${table}`);
    assert.is(Number(row!.n), 0, table);
  }
});

t.run();
