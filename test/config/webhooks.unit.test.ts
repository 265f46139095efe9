import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../../src/config/load.js';

const parse = (extra: Record<string, unknown>, env: NodeJS.ProcessEnv = { S: 'secret' }) =>
  parseConfig({ network: { id: 'n' }, ...extra }, { baseDir: '/srv/svc', env, file: 'svc.yaml' });

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const hook = (o: Record<string, unknown> = {}) => ({ id: 'w', url: 'https://hooks.example.com/x', secret_env: 'S', ...o });
const test = suite('config: webhooks and inbound_hooks');

test('a webhook gets its defaults and its secret from the environment', () => {
  const c = parse({ webhooks: [hook()], inbound_hooks: [{ id: 'ci', room: 'ops', sender: 'ci', secret_env: 'S' }] }).config;
  assert.equal(c.webhooks[0], {
    id: 'w',
    url: 'https://hooks.example.com/x',
    secret_env: 'S',
    secret: 'secret',
    events: ['message.created'],
    allow_private_network: false,
    timeout_ms: 10000,
    retry: { window_ms: 86400000, initial_ms: 5000, max_ms: 3600000 },
  });
  assert.is(c.inbound_hooks[0]!.secret, 'secret');
  assert.equal(parse({}).config.webhooks, []);
});

test('errors name the key path', () => {
  assert.match(
    errorOf(() => parse({ webhooks: [hook({ url: 'ftp://x' })] })),
    /svc\.yaml: webhooks\[0\]\.url: must be an http:\/\/ or https:\/\/ URL/,
  );
  assert.match(
    errorOf(() => parse({ webhooks: [hook()] }, {})),
    /webhooks\[0\]\.secret_env: environment variable S is not set/,
  );
  assert.match(
    errorOf(() => parse({ webhooks: [hook(), hook()] })),
    /webhooks\[1\]\.id: duplicate id "w"/,
  );
  assert.match(
    errorOf(() => parse({ webhooks: [hook({ timeout_ms: 999999 })] })),
    /webhooks\[0\]\.timeout_ms/,
  );
  assert.match(
    errorOf(() => parse({ inbound_hooks: [{ id: 'ci', room: 'ops', secret_env: 'S' }] })),
    /inbound_hooks\[0\]/,
  );
  assert.match(
    errorOf(() => parse({ webhooks: [hook()] }, { S: 'whsec_not base64!' })),
    /webhooks\[0\]\.secret_env: S starts with whsec_/,
  );
});

test('a loopback or private target is refused unless allow_private_network', () => {
  for (const url of [
    'http://127.0.0.1:9/x',
    'http://localhost/x',
    'http://10.0.0.5/x',
    'http://[::1]:80/x',
    'http://169.254.169.254/latest',
  ]) {
    assert.match(
      errorOf(() => parse({ webhooks: [hook({ url })] })),
      /webhooks\[0\]\.url: .*allow_private_network: true/,
      url,
    );
    assert.is(parse({ webhooks: [hook({ url, allow_private_network: true })] }).config.webhooks.length, 1);
  }
});

test.run();
