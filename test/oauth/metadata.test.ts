// The protected-resource metadata of /v1/mcp (RFC 9728) over HTTP: public, at both addresses,
// naming this server as the authorization server and /v1/mcp as the resource.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type AppServer } from '../helpers/app.js';

const t = suite<{ s: AppServer }>('oauth protected-resource metadata');
t.before(async (ctx) => {
  ctx.s = await startApp();
});
t.after(async (ctx) => ctx.s?.dispose());

t('the metadata is readable without a credential and names /v1/mcp as the resource', async ({ s }) => {
  const r = await s.req('GET', '/.well-known/oauth-protected-resource');
  assert.is(r.status, 200);
  const doc = r.body as { resource: string; authorization_servers: string[]; bearer_methods_supported: string[] };
  assert.is(doc.resource, `http://127.0.0.1:${s.port}/v1/mcp`);
  assert.equal(doc.authorization_servers, [`http://127.0.0.1:${s.port}/oauth`]);
  assert.equal(doc.bearer_methods_supported, ['header']);
});

t('the path-suffixed address answers the same document', async ({ s }) => {
  const a = await s.req('GET', '/.well-known/oauth-protected-resource');
  const b = await s.req('GET', '/.well-known/oauth-protected-resource/v1/mcp');
  assert.is(b.status, 200);
  assert.equal(b.body, a.body);
});

t('the resource follows the address a proxy says the caller used', async ({ s }) => {
  const r = await s.req('GET', '/.well-known/oauth-protected-resource', {
    headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'svc.example.org' },
  });
  assert.is((r.body as { resource: string }).resource, 'https://svc.example.org/v1/mcp');
});

t.run();
