// An error the OAuth provider answers 500 is reported (the feature logs it with its stack): the
// provider itself logs nothing, so before, a 500 of /oauth/reg left no trace. The provider is
// served over real HTTP with a store that fails every write.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { createProvider } from '../../src/oauth/provider.js';

/** A store that cannot write: every upsert fails as a broken database would. */
class FailingAdapter implements Adapter {
  async upsert(): Promise<void> {
    throw new Error('the store refused the write (test)');
  }
  async find(): Promise<AdapterPayload | undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<AdapterPayload | undefined> {
    return undefined;
  }
  async findByUid(): Promise<AdapterPayload | undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

const t = suite('oauth provider errors');

t('a registration the provider answers 500 is reported with its error', async () => {
  const reported: unknown[] = [];
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { handle } = createProvider(base, {
    adapter: FailingAdapter,
    accountExists: async () => false,
    onServerError: (err) => reported.push(err),
  });
  server.on('request', handle);
  try {
    const r = await fetch(`${base}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    });
    assert.is(r.status, 500, await r.text());
    assert.is(reported.length, 1);
    assert.match(String((reported[0] as Error).message), /the store refused the write/);
  } finally {
    server.close();
  }
});

t.run();
