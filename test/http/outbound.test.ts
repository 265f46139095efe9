// The one guard of svc's outbound requests (src/http/outbound.ts) behind both users of it, the
// OAuth client metadata fetch and the webhook POST: a loopback listener counts the connections
// that reach it. IP literals in every form the URL parser accepts, and a name that a resolver the
// test controls points at loopback, reach nothing unless private addresses are allowed.

import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Resolve } from '../../src/http/outbound.js';
import { metadataFetcher } from '../../src/oauth/metadata-fetch.js';
import { postJson } from '../../src/http/outbound-post.js';

/** A TCP listener on 127.0.0.1 that counts connections and closes each at once. */
async function listener(): Promise<{ port: number; count(): number; close(): Promise<void> }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    count: () => n,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A resolver the test controls: every name is the addresses given. */
const pointing =
  (...addresses: string[]): Resolve =>
  async () =>
    addresses.map((address) => ({ address, family: net.isIP(address) }));

const LITERALS = (port: number) => [
  `127.0.0.1:${port}`,
  `[::ffff:127.0.0.1]:${port}`,
  `[::ffff:7f00:1]:${port}`,
  `[0:0:0:0:0:ffff:127.0.0.1]:${port}`,
  `127.1:${port}`,
  `2130706433:${port}`,
  `0x7f.0.0.1:${port}`,
  `localhost:${port}`,
];

test('the metadata fetch reaches no loopback literal, in any form, unless private addresses are allowed', async () => {
  const l = await listener();
  try {
    const strict = metadataFetcher(() => false);
    for (const host of LITERALS(l.port)) assert.is(await strict(`https://${host}/m.json`), undefined, host);
    assert.is(l.count(), 0, 'no connection reached the listener');
    // The same request with private addresses allowed does connect: the count above can fail.
    await metadataFetcher(() => true)(`https://[::ffff:127.0.0.1]:${l.port}/m.json`);
    assert.is(l.count(), 1);
  } finally {
    await l.close();
  }
});

test('the metadata fetch judges a name on the address it connects to (a resolver pointing at loopback)', async () => {
  const l = await listener();
  try {
    for (const resolve of [pointing('127.0.0.1'), pointing('93.184.216.34', '127.0.0.1'), pointing('::ffff:127.0.0.1')]) {
      assert.is(await metadataFetcher(() => false, resolve)(`https://client.example:${l.port}/m.json`), undefined);
    }
    assert.is(l.count(), 0);
    await metadataFetcher(() => true, pointing('127.0.0.1'))(`https://client.example:${l.port}/m.json`);
    assert.is(l.count(), 1, 'allowed, the name connects where the resolver said');
  } finally {
    await l.close();
  }
});

test('a webhook POST reaches no loopback literal and no name resolving to loopback without allow_private_network', async () => {
  const l = await listener();
  try {
    const strict = { timeoutMs: 2000, allowPrivate: false };
    for (const host of LITERALS(l.port)) {
      const r = await postJson(`http://${host}/hook`, {}, '{}', strict);
      assert.not.ok(r.ok, host);
      assert.match(r.error ?? '', /^refused: .*allow_private_network is off/, host);
    }
    const named = await postJson(`http://hooks.example:${l.port}/hook`, {}, '{}', { ...strict, resolve: pointing('::ffff:127.0.0.1') });
    assert.match(named.error ?? '', /refused: hooks\.example resolves to ::ffff:127\.0\.0\.1/);
    assert.is(l.count(), 0);
    await postJson(`http://hooks.example:${l.port}/hook`, {}, '{}', {
      timeoutMs: 2000,
      allowPrivate: true,
      resolve: pointing('127.0.0.1'),
    });
    assert.is(l.count(), 1, 'allowed, the POST connects');
  } finally {
    await l.close();
  }
});

test.run();
