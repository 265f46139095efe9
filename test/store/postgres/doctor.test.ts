// svc doctor's database checks on a Postgres store: reachable, migrated, the search index's
// upkeep (whose role owns the index), instances seen.

import { createServer } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgresStore } from '../../../src/store/postgres/index.js';
import { databaseChecks } from '../../../src/store/postgres/doctor.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { freshSchema, guestRole, sql } from '../../helpers/pg.js';
import { cli } from '../../helpers/cli.js';
import { pgStore, startPgServer } from '../../helpers/pg-server.js';
import { TOKENS } from '../../helpers/server.js';

const test = suite('doctor: postgres database checks');

test('an unreachable database fails the first check and stops there', async () => {
  // A port nothing listens on: bind one, close it, use it.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const r = await databaseChecks(`postgres://svc:pw@127.0.0.1:${port}/svc`, 'public', 'the db');
  assert.is(r.length, 1);
  assert.is(r[0]!.check, 'database reachable');
  assert.is(r[0]!.status, 'fail');
  assert.not.match(r[0]!.message, 'pw');
});

test('an empty schema warns that the first serve will create the tables', async () => {
  const s = await freshSchema();
  try {
    const r = await databaseChecks(s.url, s.schema, 'db');
    assert.equal(
      r.map((x) => [x.check, x.status]),
      [
        ['database reachable', 'ok'],
        ['database schema', 'warn'],
      ],
    );
  } finally {
    await s.drop();
  }
});

test('a migrated schema with a running instance reports its version and the instance', async () => {
  const s = await freshSchema();
  const store = await openPostgresStore({ url: s.url, schema: s.schema });
  try {
    const r = await databaseChecks(s.url, s.schema, 'db');
    assert.equal(
      r.map((x) => [x.check, x.status]),
      [
        ['database reachable', 'ok'],
        ['database schema', 'ok'],
        ['search index upkeep', 'ok'],
        ['instances', 'ok'],
      ],
    );
    assert.match(r[1]!.message, `version ${SCHEMA_VERSION}`);
    assert.match(r[3]!.message, `pid ${process.pid}`);
    await store.close();
    const after = await databaseChecks(s.url, s.schema, 'db');
    assert.is(after[3]!.status, 'info');
    await sql(s.url, `INSERT INTO ${s.schema}.schema_migrations (version) VALUES (${SCHEMA_VERSION + 1})`);
    const newer = await databaseChecks(s.url, s.schema, 'db');
    assert.is(newer[1]!.status, 'fail');
  } finally {
    await store.close();
    await s.drop();
  }
});

test('a role that does not own the search index is warned that the sends merge it themselves', async () => {
  const s = await freshSchema();
  const store = await openPostgresStore({ url: s.url, schema: s.schema });
  await store.close();
  const role = await guestRole(s, `${s.schema}_doc`, 'read');
  try {
    const r = await databaseChecks(role.url, s.schema, 'db');
    const upkeep = r.find((x) => x.check === 'search index upkeep');
    assert.is(upkeep?.status, 'warn', JSON.stringify(r));
    assert.match(upkeep!.message, `${s.schema}".messages_words belongs to postgres, not to this role`);
  } finally {
    await role.drop();
    await s.drop();
  }
});

test('svc doctor on a Postgres config prints the database lines without the password', async () => {
  const s = await freshSchema();
  const server = await startPgServer(s);
  try {
    const withPw = s.url.replace('postgres@', 'postgres:not-the-password@');
    const r = await cli(['doctor', '--config', server.configFile, '--url', server.url, '--token', TOKENS.admin.value], {
      env: { SVC_TEST_STORE_URL: withPw },
    });
    // The server version itself, never a question mark.
    assert.match(r.stdout, /✓ database reachable +postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres answers \(PostgreSQL \d+\.\d+/);
    assert.match(r.stdout, new RegExp(`✓ database schema +schema ${s.schema} migrated \\(version ${SCHEMA_VERSION}\\)`));
    assert.match(r.stdout, /✓ search index upkeep +this role owns /);
    assert.match(r.stdout, /✓ instances +1 seen in the last 60 s/);
    assert.not.match(r.stdout + r.stderr, /not-the-password/);
    assert.ok(pgStore(s).url_env);
  } finally {
    await server.dispose();
    await s.drop();
  }
});

test.run();
