import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, describeStoreUrl, loadConfig, parseConfig } from '../../src/config/load.js';

const test = suite('config: postgres store');
const SECRET = 's3cr3t-pw';
const URL_WITH_PW = `postgres://svc:${SECRET}@db.internal:5432/svcdb`;

const parse = (store: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  parseConfig({ network: { id: 'n1' }, store }, { baseDir: '/srv/svc', env, file: 'svc.yaml' });

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

test('a postgres store takes its url and defaults the schema to public', () => {
  const c = parse({ backend: 'postgres', url: URL_WITH_PW }).config;
  assert.is(c.store.backend, 'postgres');
  assert.is(c.store.url, URL_WITH_PW);
  assert.is(c.store.schema, 'public');
});

test('url_env reads the url from the environment and the key is not kept', () => {
  const c = parse({ backend: 'postgres', url_env: 'SVC_DB', schema: 'team_a' }, { SVC_DB: URL_WITH_PW }).config;
  assert.is(c.store.url, URL_WITH_PW);
  assert.is(c.store.schema, 'team_a');
  assert.not.ok('url_env' in c.store);
});

test('a missing or empty url_env variable is an error naming the variable, not a value', () => {
  assert.match(
    errorOf(() => parse({ backend: 'postgres', url_env: 'SVC_DB' })),
    'store.url_env: environment variable SVC_DB is not set',
  );
  assert.match(
    errorOf(() => parse({ backend: 'postgres', url_env: 'SVC_DB' }, { SVC_DB: '' })),
    'SVC_DB is empty',
  );
});

test('postgres without a url, with both url and url_env, or with a non-postgres url is refused without echoing the url', () => {
  assert.match(
    errorOf(() => parse({ backend: 'postgres' })),
    'store: backend postgres needs url or url_env',
  );
  assert.match(
    errorOf(() => parse({ backend: 'postgres', url: URL_WITH_PW, url_env: 'X' }, { X: URL_WITH_PW })),
    'set url or url_env, not both',
  );
  const bad = errorOf(() => parse({ backend: 'postgres', url: `mysql://u:${SECRET}@h/db` }));
  assert.match(bad, 'store.url: must be a postgres:// or postgresql:// URL');
  assert.not.match(bad, SECRET);
  const badEnv = errorOf(() => parse({ backend: 'postgres', url_env: 'X' }, { X: `nonsense ${SECRET}` }));
  assert.match(badEnv, 'store.url_env (X): must be a postgres');
  assert.not.match(badEnv, SECRET);
});

test('a url on another backend is refused', () => {
  assert.match(
    errorOf(() => parse({ backend: 'sqlite', url: URL_WITH_PW })),
    'store.url: only used with store.backend: postgres',
  );
});

test('a schema name must be a plain lowercase identifier', () => {
  assert.match(
    errorOf(() => parse({ backend: 'postgres', url: URL_WITH_PW, schema: 'Bad-Name' })),
    'store.schema',
  );
  assert.match(
    errorOf(() => parse({ backend: 'postgres', url: URL_WITH_PW, schema: 'x; DROP TABLE y' })),
    'store.schema',
  );
});

test('a display form of the url never holds the password', () => {
  assert.is(describeStoreUrl(URL_WITH_PW), 'postgres://svc@db.internal:5432/svcdb');
  assert.is(describeStoreUrl('garbage'), '(an unparsable URL)');
});

test('a config file with a password in store.url must be private like other plaintext secrets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-config-pg-'));
  try {
    const file = join(dir, 'svc.yaml');
    writeFileSync(file, `network: { id: n1 }\nstore: { backend: postgres, url: "${URL_WITH_PW}" }\n`);
    chmodSync(file, 0o644);
    const msg = errorOf(() => loadConfig(file, {}));
    assert.match(msg, 'store.url');
    assert.match(msg, 'chmod 600');
    assert.not.match(msg, SECRET);
    writeFileSync(file, 'network: { id: n1 }\nstore: { backend: postgres, url: "postgres://svc@db.internal/svcdb" }\n');
    assert.is(loadConfig(file, {}).config.store.url, 'postgres://svc@db.internal/svcdb');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
