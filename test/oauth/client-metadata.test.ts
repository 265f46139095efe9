// Client ID metadata documents over real HTTPS: a client whose client_id is the https URL of its
// metadata document is accepted without registering and goes through the whole flow (SDK client,
// console consent in Chromium, token exchange as a public client, a tool call); a document that
// names another client_id is refused. The document server uses a throwaway certificate that the
// svc process trusts through NODE_EXTRA_CA_CERTS.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { callbackServer, MemoryOAuthClient } from './oauth-client.js';

interface Ctx {
  s: TestServer;
  docs: https.Server;
  docsUrl: string;
  cb: Awaited<ReturnType<typeof callbackServer>>;
  browser: Browser;
  contexts: BrowserContext[];
  page: Page;
  /** The certificate's folder. */
  certDir: string;
}

/** A self-signed certificate for 127.0.0.1; returns the paths of its key and certificate, and their folder. */
function certificate(): { key: string; cert: string; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-cimd-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key, cert, dir };
}

const t = suite<Ctx>('OAuth client ID metadata documents');
setupOnce(t, async (ctx) => {
  const { key, cert, dir } = certificate();
  ctx.certDir = dir;
  ctx.cb = await callbackServer();
  ctx.docs = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const self = `${ctx.docsUrl}${req.url}`;
    const doc =
      req.url === '/client.json'
        ? {
            client_id: self,
            client_name: 'Document client',
            redirect_uris: [ctx.cb.url],
            grant_types: ['authorization_code', 'refresh_token'],
          }
        : req.url === '/other.json'
          ? { client_id: `${ctx.docsUrl}/client.json`, client_name: 'Impostor', redirect_uris: [ctx.cb.url] }
          : undefined;
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((r) => ctx.docs.listen(0, '127.0.0.1', r));
  ctx.docsUrl = `https://127.0.0.1:${(ctx.docs.address() as AddressInfo).port}`;
  ctx.s = await startServer({ env: { NODE_EXTRA_CA_CERTS: cert } });
  const r = await ctx.s.req('POST', '/v1/agents/register', { token: TOKENS.admin.value, body: { requested_agent_id: 'gamma' } });
  assert.is(r.status, 200, r.text);
  ctx.browser = await launchBrowser();
  ctx.contexts = [];
  ctx.page = await openPage(ctx.browser, ctx.contexts, []);
});
t.after(async (ctx) => {
  for (const c of ctx.contexts ?? []) await c.close();
  await ctx.browser?.close();
  await ctx.cb?.close();
  await new Promise((r) => ctx.docs?.close(r));
  await ctx.s?.dispose();
  if (ctx.certDir) rmSync(ctx.certDir, { recursive: true, force: true });
});

function authorize(ctx: Ctx, clientId: string): Promise<Response> {
  const q = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: ctx.cb.url,
    scope: 'mcp',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  return fetch(`${ctx.s.url}/oauth/auth?${q}`, { redirect: 'manual' });
}

t('the authorization-server metadata says URL client ids are supported', async (ctx) => {
  const r = await fetch(`${ctx.s.url}/.well-known/oauth-authorization-server/oauth`);
  assert.is(((await r.json()) as Json).client_id_metadata_document_supported, true);
});

t('a document that names another client_id is refused (no consent page); one naming itself is accepted', async (ctx) => {
  const good = await authorize(ctx, `${ctx.docsUrl}/client.json`);
  assert.is(good.status, 303);
  assert.match(good.headers.get('location') ?? '', /^\/console\/oauth\//);
  const r = await authorize(ctx, `${ctx.docsUrl}/other.json`);
  assert.is(r.status, 400);
  assert.not.match(r.headers.get('location') ?? '', /console/);
});

t('with a URL client_id the SDK client goes through consent and the token acts as the chosen agent', async (ctx) => {
  const client = new MemoryOAuthClient(ctx.cb.url, `${ctx.docsUrl}/client.json`);
  const mcp = () => new StreamableHTTPClientTransport(new URL(`${ctx.s.url}/v1/mcp`), { authProvider: client });
  try {
    await new Client({ name: 'cimd-test', version: '1' }).connect(mcp());
    assert.unreachable('needs an authorization first');
  } catch (err) {
    assert.instance(err, UnauthorizedError);
  }
  assert.is(client.info?.client_id, `${ctx.docsUrl}/client.json`, 'no registration: the URL is the client id');
  await ctx.page.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}`);
  await ctx.page.waitForURL(`${ctx.s.url}/console/`);
  await ctx.page.goto(client.authorizationUrl!.href);
  assert.is(await ctx.page.getByTestId('client-name').textContent(), 'Document client');
  await ctx.page.getByTestId('agent-picker').selectOption('gamma');
  const callback = ctx.cb.next();
  await ctx.page.getByTestId('approve').click();
  await mcp().finishAuth((await callback).get('code')!);
  const c = new Client({ name: 'cimd-test', version: '1' });
  await c.connect(mcp());
  try {
    const who = (await c.callTool({ name: 'whoami', arguments: {} })) as Json;
    assert.is(who.structuredContent.agent.id, 'gamma');
  } finally {
    await c.close();
  }
});

t.run();
