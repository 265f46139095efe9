// The providers kept per base URL are bounded: the base URL comes from the Host header, which any
// caller chooses, so a caller naming a new host on each request must not make the server keep a
// provider (and its caches) for each. The most recently used are kept; one asked for again is
// built again.

import type { IncomingMessage } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newKeys } from '../../src/oauth/keys.js';
import { MAX_PROVIDERS, Providers } from '../../src/oauth/providers.js';

const reqFor = (host: string) => ({ headers: { host } }) as unknown as IncomingMessage;

test('forty hosts leave at most MAX_PROVIDERS providers; a recent host keeps its provider', async () => {
  const keys = newKeys();
  const providers = new Providers(
    { accountExists: async () => false },
    async () => ({ jwks: keys.jwks, cookieKeys: keys.cookies }),
    (req) => `http://${req.headers.host}`,
  );
  const kept = await providers.for(reqFor('svc.example'));
  for (let i = 0; i < 40; i++) {
    await providers.for(reqFor(`h${i}.example`));
    // The host in use is asked for again between the others: it stays the most recent.
    assert.is(await providers.for(reqFor('svc.example')), kept);
  }
  assert.ok(providers.size <= MAX_PROVIDERS, `kept ${providers.size}`);
  const again = await providers.for(reqFor('h0.example'));
  assert.is(again.provider.issuer, 'http://h0.example/oauth', 'an evicted base URL is served by a new provider');
});

test.run();
