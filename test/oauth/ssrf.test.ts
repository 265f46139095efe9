// The client metadata fetch of /oauth/auth against a server that listens beyond loopback (so
// private addresses are refused): a URL client_id naming loopback in the IPv4-mapped IPv6 form
// (which the URL parser rewrites to [::ffff:7f00:1]) reaches nothing; a loopback listener counts
// the connections that arrive.

import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp } from '../helpers/app.js';

test('GET /oauth/auth with a client_id on [::ffff:127.0.0.1] connects nowhere and goes to no consent', async () => {
  let connections = 0;
  const target = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const port = (target.address() as AddressInfo).port;
  const s = await startApp({ config: { server: { listen_addr: '0.0.0.0:0' } } });
  try {
    for (const host of [`[::ffff:127.0.0.1]:${port}`, `[::ffff:7f00:1]:${port}`, `127.0.0.1:${port}`]) {
      const clientId = `https://${host}/m.json`;
      const q = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: 'https://client.example/cb',
        scope: 'mcp',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const r = await fetch(`http://127.0.0.1:${s.port}/oauth/auth?${q}`, { redirect: 'manual' });
      assert.is(r.status, 400, `${host}: ${r.status} ${r.headers.get('location')}`);
      assert.not.match(r.headers.get('location') ?? '', /\/console\/oauth\//);
    }
    assert.is(connections, 0, 'no connection reached the loopback listener');
  } finally {
    await s.dispose();
    await new Promise<void>((r) => target.close(() => r()));
  }
});

test.run();
