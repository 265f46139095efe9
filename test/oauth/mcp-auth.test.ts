// The 401s of /v1/mcp and the per-address failed-auth limit with OAuth-shaped tokens: a caller
// without a token is told where the resource metadata is; unknown access tokens count as failures
// like any bad token, and past server.limits.auth_failures_per_minute the address gets 429.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type AppServer } from '../helpers/app.js';

const t = suite<{ s: AppServer }>('/v1/mcp authentication with OAuth');
t.before(async (ctx) => {
  ctx.s = await startApp({ config: { server: { limits: { auth_failures_per_minute: 3 } } } });
});
t.after(async (ctx) => ctx.s?.dispose());

const init = (s: AppServer, headers: Record<string, string>) =>
  fetch(`${s.url}/v1/mcp`, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }),
  });

t('without a token, /v1/mcp answers 401 with the resource metadata challenge', async ({ s }) => {
  const r = await init(s, {});
  assert.is(r.status, 401);
  assert.is(r.headers.get('www-authenticate'), `Bearer resource_metadata="${s.url}/.well-known/oauth-protected-resource/v1/mcp"`);
});

t('unknown access tokens are 401 and count toward the per-address limit: then 429', async ({ s }) => {
  for (let i = 0; i < 3; i++) {
    const r = await init(s, { authorization: `Bearer ${'A'.repeat(40)}${i}` });
    assert.is(r.status, 401);
  }
  const limited = await init(s, { authorization: `Bearer ${'B'.repeat(43)}` });
  assert.is(limited.status, 429);
});

t.run();
