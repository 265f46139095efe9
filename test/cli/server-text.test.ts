// What a server says in an error reaches the terminal without escape sequences: the CLI's last
// guard lets colour codes through (its own), so the server's text is cleaned before it is printed.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';

const t = suite<{ server: http.Server; url: string }>('server error text on the terminal');
t.before(async (ctx) => {
  ctx.server = http.createServer((_req, res) => {
    const body = JSON.stringify({
      error: 'bad\u001b[8m hidden \u001b[0m\u001b[2J\u001b]0;title\u0007 \u202etxt.exe\u200b end',
      code: 'bad_request',
    });
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => ctx.server.listen(0, '127.0.0.1', () => r()));
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
});
t.after(async (ctx) => new Promise<void>((r) => ctx.server.close(() => r())));

t('an error message holding colour codes, other escapes or bidi characters prints without them', async ({ url }) => {
  const r = await cli(['rooms', 'list', '--url', url, '--token', 'some-token-0123456789']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /^svc rooms list: 400 bad_request: bad\?\[8m hidden .* end/);
  assert.not.match(r.stderr, /[\u001b\u0007\u202e\u200b]/, JSON.stringify(r.stderr));
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
});

t.run();
