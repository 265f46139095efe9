// Files on PostgreSQL (#41 part 3): two instances on one schema (two apps in the test process, each
// with its own store connection) are one network, so a file uploaded on one is served by the
// other, with the access rule and ranges, whether the bytes live in the database (chunked, the
// default) or in an S3-compatible bucket (`store.files`, here s3rver). The same bytes are one blob
// however many uploads and instances carry them.

import { createHash, randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { S3Blobs } from '../../src/files/blobs/s3.js';
import { startApp } from '../helpers/app.js';
import { pgStore } from '../helpers/pg-server.js';
import { freshSchema, sql, type PgSchema } from '../helpers/pg.js';
import type { HttpServer, Json } from '../helpers/server.js';
import { download, FILE_ROOMS, fileAgents, refusal, sendFile, uploaded } from './helpers.js';
import { startBucket, type TestBucket } from './s3.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Past one 1 MiB chunk, so a range can cross a chunk boundary. */
const BIG = randomBytes(1024 * 1024 + 300_000);
const MISSING = 'file_00000000000000000000000000';

async function two(pgs: PgSchema, files: Json | undefined, env: Record<string, string> = {}): Promise<HttpServer[]> {
  const config = {
    auth: { agent_registration: 'open' },
    rooms: FILE_ROOMS,
    store: { ...pgStore(pgs), ...(files ? { files } : {}) },
  };
  const out: HttpServer[] = [];
  // One after the other: the first migrates.
  for (let i = 0; i < 2; i++) out.push(await startApp({ config, env: { SVC_TEST_STORE_URL: pgs.url, ...env } }));
  return out;
}

/** What both backends must do: uploaded on `a`, served by `b` to its readers only, ranges across a chunk, one blob. */
async function servedByTheOther(a: HttpServer, b: HttpServer): Promise<string> {
  const agents = await fileAgents(a);
  const id = await uploaded(a, BIG, 'big.bin', agents.bob);
  assert.is((await download(b, id, agents.bob)).bytes.equals(BIG), true, 'the uploader reads it on the other instance');
  assert.equal(await refusal(b, id, agents.ann), await refusal(b, MISSING, agents.ann), 'no one else does yet');
  const sent = await sendFile(b, agents.bob, 'bob', { kind: 'room', room_id: 'priv' }, id);
  assert.is(sent.status, 200, sent.text);
  assert.equal(await refusal(a, id, agents.ann), await refusal(a, MISSING, agents.ann), 'ann is not in priv');
  const whole = await download(a, id, TOKEN_OBSERVER);
  assert.is(whole.status, 200);
  assert.ok(whole.bytes.equals(BIG));
  assert.is(whole.headers.get('etag'), `"${sha(BIG)}"`);
  const from = 1024 * 1024 - 10;
  const part = await download(b, id, agents.bob, { range: `bytes=${from}-${from + 19}` });
  assert.is(part.status, 206);
  assert.ok(part.bytes.equals(BIG.subarray(from, from + 20)), 'a range across the chunk boundary');
  // The same bytes uploaded again on the other instance: another file, the same blob.
  const again = await b.req('POST', '/v1/files?name=copy.bin', { token: agents.cal, raw: BIG });
  assert.is(again.status, 201);
  assert.is(again.body.sha256, sha(BIG));
  return sha(BIG);
}

const TOKEN_OBSERVER = 'tok-observer-0123456789';

const db = suite<{ pgs: PgSchema; servers: HttpServer[] }>('files on two Postgres instances, bytes in the database');
db.before(async (c) => {
  c.pgs = await freshSchema();
  c.servers = await two(c.pgs, undefined);
});
db.after(async (c) => {
  await Promise.all((c.servers ?? []).map((s) => s.dispose()));
  await c.pgs?.drop();
});

db('a file uploaded on one instance is served by the other, to its readers only; the same bytes are one blob', async (c) => {
  const [a, b] = c.servers as [HttpServer, HttpServer];
  const hash = await servedByTheOther(a, b);
  const blobs = await sql(c.pgs.url, `SELECT sha256, size FROM "${c.pgs.schema}".file_blobs`);
  assert.equal(blobs, [{ sha256: hash, size: String(BIG.length) }]);
  const chunks = await sql(c.pgs.url, `SELECT count(*)::int AS n FROM "${c.pgs.schema}".file_chunks WHERE sha256 = $1`, [hash]);
  assert.is(chunks[0]!.n, 2);
});

const s3 = suite<{ pgs: PgSchema; bucket: TestBucket; servers: HttpServer[] }>('files on two Postgres instances, bytes in an S3 bucket');
s3.before(async (c) => {
  c.pgs = await freshSchema();
  c.bucket = await startBucket();
  c.servers = await two(
    c.pgs,
    {
      backend: 's3',
      bucket: c.bucket.bucket,
      endpoint: c.bucket.endpoint,
      region: 'us-east-1',
      prefix: 'svc/',
      access_key_env: 'TEST_S3_KEY',
      secret_key_env: 'TEST_S3_SECRET',
      force_path_style: true,
    },
    { TEST_S3_KEY: c.bucket.credentials.accessKeyId, TEST_S3_SECRET: c.bucket.credentials.secretAccessKey },
  );
});
s3.after(async (c) => {
  await Promise.all((c.servers ?? []).map((s) => s.dispose()));
  await c.bucket?.close();
  await c.pgs?.drop();
});

s3('a file uploaded on one instance is served by the other from the bucket; the database keeps no bytes', async (c) => {
  const [a, b] = c.servers as [HttpServer, HttpServer];
  const hash = await servedByTheOther(a, b);
  const bucket = new S3Blobs({
    bucket: c.bucket.bucket,
    region: 'us-east-1',
    endpoint: c.bucket.endpoint,
    prefix: 'svc/',
    credentials: c.bucket.credentials,
  });
  try {
    assert.is(await bucket.size(hash), BIG.length, 'the object is in the bucket under its hash');
  } finally {
    await bucket.close();
  }
  const tables = await sql(c.pgs.url, 'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [
    c.pgs.schema,
    'file_chunks',
  ]);
  assert.equal(tables, [], 'no chunk table is made');
});

db.run();
s3.run();
