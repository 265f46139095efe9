import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshSchema, sharedCluster, sql, startOwnCluster } from '../../helpers/pg.js';

const test = suite('postgres test harness');

test('each test gets a fresh empty schema on a reachable server', async () => {
  const a = await freshSchema();
  const b = await freshSchema();
  try {
    assert.is.not(a.schema, b.schema);
    const rows = await sql<{ n: string }>(a.url, 'SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema = $1', [
      a.schema,
    ]);
    assert.is(rows[0]!.n, '0');
    await sql(a.url, `CREATE TABLE ${a.schema}.t (x int)`);
    const inB = await sql(b.url, 'SELECT 1 FROM information_schema.tables WHERE table_schema = $1', [b.schema]);
    assert.is(inB.length, 0);
  } finally {
    await a.drop();
    await b.drop();
  }
  const gone = await sql(a.url, 'SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [a.schema]);
  assert.is(gone.length, 0);
});

test('an own cluster stops, refuses connections, starts again with its data, and is removed', async () => {
  if (process.env.SVC_TEST_PG_URL) {
    // An external server is not ours to stop; the shared one must still answer.
    const c = await sharedCluster();
    assert.is((await sql<{ v: number }>(c.url, 'SELECT 1 AS v'))[0]!.v, 1);
    return;
  }
  const c = await startOwnCluster();
  try {
    await sql(c.url, 'CREATE TABLE kept (x int)');
    await sql(c.url, 'INSERT INTO kept VALUES (7)');
    c.stop();
    let refused = false;
    try {
      await sql(c.url, 'SELECT 1');
    } catch {
      refused = true;
    }
    assert.ok(refused, 'a stopped cluster refuses connections');
    c.start();
    const rows = await sql<{ x: number }>(c.url, 'SELECT x FROM kept');
    assert.equal(rows, [{ x: 7 }]);
  } finally {
    c.destroy();
  }
});

test.run();
