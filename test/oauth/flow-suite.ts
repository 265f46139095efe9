// The whole OAuth flow of an MCP client against a real `svc serve`, with the SDK's client-side
// OAuth support: discovery from the 401 on /v1/mcp, dynamic registration, the consent in the
// console driven in Chromium, the token exchange, tool calls acting as the chosen agent, refresh
// with rotation, revocation; and the limits of the token: /v1/mcp of this server only.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { TOKENS, type Json, type HttpServer } from '../helpers/server.js';
import { callbackServer, MemoryOAuthClient } from './oauth-client.js';

const ADMIN = TOKENS.admin.value;
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** Starts the server the suite runs against (with `config` merged over the test defaults). */
export type StartFn = (config: Record<string, Json>) => Promise<{ s: HttpServer; cleanup?: () => Promise<void> }>;

interface Ctx {
  s: HttpServer;
  cleanup?: () => Promise<void>;
  browser: Browser;
  contexts: BrowserContext[];
  page: Page;
  cb: Awaited<ReturnType<typeof callbackServer>>;
  client: MemoryOAuthClient;
  access: string;
  refresh: string;
}

/** The whole flow as one suite named `name`, against the server `start` gives. */
export function oauthFlowSuite(name: string, start: StartFn): void {
  const t = suite<Ctx>(`OAuth flow of an MCP client (SDK + console consent, ${name})`);
  setupOnce(t, async (ctx) => {
    Object.assign(ctx, await start({ rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta'] }] }));
    const r = await ctx.s.req('POST', '/v1/agents/register', { token: ADMIN, body: { requested_agent_id: 'beta', name: 'Beta' } });
    assert.is(r.status, 200, r.text);
    ctx.cb = await callbackServer();
    ctx.client = new MemoryOAuthClient(ctx.cb.url);
    ctx.browser = await launchBrowser();
    ctx.contexts = [];
    ctx.page = await openPage(ctx.browser, ctx.contexts, []);
  });
  t.after(async (ctx) => {
    for (const c of ctx.contexts ?? []) await c.close();
    await ctx.browser?.close();
    await ctx.cb?.close();
    await ctx.s?.dispose();
    await ctx.cleanup?.();
  });

  /** Connects the SDK client to /v1/mcp with the OAuth client's tokens. */
  async function connect(ctx: Ctx): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${ctx.s.url}/v1/mcp`), { authProvider: ctx.client });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  }

  async function whoami(ctx: Ctx): Promise<string> {
    const { client } = await connect(ctx);
    try {
      const r = (await client.callTool({ name: 'whoami', arguments: {} })) as Json;
      assert.not.ok(r.isError, JSON.stringify(r.content));
      return r.structuredContent.agent.id as string;
    } finally {
      await client.close();
    }
  }

  /** The next callback, or a failure that shows where the browser is. */
  function callbackOf(ctx: Ctx, pending: Promise<URLSearchParams>): Promise<URLSearchParams> {
    return pending.catch(async (e: Error) => {
      throw new Error(`${e.message}; page ${ctx.page.url()}: ${(await ctx.page.content()).slice(0, 2000)}`);
    });
  }

  /** POST initialize to /v1/mcp with a bearer token; the raw answer. */
  function rawInit(ctx: Ctx, token: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${ctx.s.url}/v1/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(INIT),
    });
  }

  t('a 401 from /v1/mcp carries the RFC 9728 challenge naming its resource metadata', async (ctx) => {
    const r = await rawInit(ctx, 'not-a-token-of-this-server');
    assert.is(r.status, 401);
    assert.is(r.headers.get('www-authenticate'), `Bearer resource_metadata="${ctx.s.url}/.well-known/oauth-protected-resource/v1/mcp"`);
  });

  t('the SDK client discovers the server from the 401, registers itself and sends the person to the consent', async (ctx) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${ctx.s.url}/v1/mcp`), { authProvider: ctx.client });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      assert.unreachable('connect without a token must need an authorization');
    } catch (err) {
      assert.instance(err, UnauthorizedError);
    }
    assert.ok(ctx.client.info?.client_id, 'registered dynamically');
    const u = ctx.client.authorizationUrl!;
    assert.is(`${u.origin}${u.pathname}`, `${ctx.s.url}/oauth/auth`);
    assert.is(u.searchParams.get('code_challenge_method'), 'S256');
    assert.is(u.searchParams.get('resource'), `${ctx.s.url}/v1/mcp`);
  });

  t('a signed-out visitor of the consent page is told to sign in and given the way back', async (ctx) => {
    await ctx.page.goto(ctx.client.authorizationUrl!.href);
    await ctx.page.getByTestId('back-to-consent').waitFor();
    assert.match((await ctx.page.locator('main').textContent()) ?? '', /svc console/);
    assert.match((await ctx.page.getByTestId('client-name').textContent()) ?? '', /Test MCP client/);
  });

  t('signed in to the console, the person sees the client and picks the agent; approving returns a code', async (ctx) => {
    await ctx.page.goto(`${ctx.s.url}/console/?access_token=${ADMIN}`);
    await ctx.page.waitForURL(`${ctx.s.url}/console/`);
    await ctx.page.goto(ctx.client.authorizationUrl!.href);
    await ctx.page.getByTestId('agent-picker').waitFor();
    assert.is(await ctx.page.getByTestId('client-id').textContent(), ctx.client.info!.client_id);
    assert.is(await ctx.page.getByTestId('client-host').textContent(), new URL(ctx.cb.url).host);
    // An admin may pick any agent.
    const options = await ctx.page.locator('[data-testid=agent-picker] option').allInnerTexts();
    assert.ok(options.some((o) => o.includes('alpha')) && options.some((o) => o.includes('beta')), options.join());
    await ctx.page.getByTestId('agent-picker').selectOption('beta');
    const callback = ctx.cb.next();
    await ctx.page.getByTestId('approve').click();
    const q = await callbackOf(ctx, callback);
    assert.ok(q.get('code'), `callback: ${q}`);
    const transport = new StreamableHTTPClientTransport(new URL(`${ctx.s.url}/v1/mcp`), { authProvider: ctx.client });
    await transport.finishAuth(q.get('code')!);
    ctx.access = ctx.client.saved!.access_token;
    ctx.refresh = ctx.client.saved!.refresh_token!;
    assert.ok(ctx.access && ctx.refresh, 'an access and a refresh token');
  });

  t('a tool call with the access token acts as the chosen agent', async (ctx) => {
    assert.is(await whoami(ctx), 'beta');
    const { client } = await connect(ctx);
    try {
      const sent = (await client.callTool({ name: 'send_message', arguments: { room_id: 'general', text: 'hello over oauth' } })) as Json;
      assert.not.ok(sent.isError, JSON.stringify(sent.content));
      const stored = await ctx.s.req('GET', '/v1/rooms/general/messages?limit=10', { token: ADMIN });
      const mine = stored.body.messages.find((m: Json) => m.id === sent.structuredContent.message_id);
      assert.is(mine?.from.id, 'beta');
    } finally {
      await client.close();
    }
  });

  t('the access token is refused everywhere but /v1/mcp (GET /v1/rooms is 401)', async (ctx) => {
    const r = await ctx.s.req('GET', '/v1/rooms', { token: ctx.access });
    assert.is(r.status, 401, r.text);
    assert.is(r.headers.get('www-authenticate'), null);
  });

  t('the access token is refused for another resource (the same server under another name)', async (ctx) => {
    const r = await rawInit(ctx, ctx.access, { 'x-forwarded-host': 'other.example' });
    assert.is(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /other\.example/);
  });

  t('refreshing gives a new access token and a new refresh token', async (ctx) => {
    assert.is(await auth(ctx.client, { serverUrl: `${ctx.s.url}/v1/mcp` }), 'AUTHORIZED');
    const next = ctx.client.saved!;
    assert.is.not(next.access_token, ctx.access);
    assert.ok(next.refresh_token && next.refresh_token !== ctx.refresh, 'the refresh token rotated');
    ctx.access = next.access_token;
    ctx.refresh = next.refresh_token!;
    assert.is(await whoami(ctx), 'beta');
  });

  t('after revoking the grant (its refresh token) the access token is refused on /v1/mcp', async (ctx) => {
    assert.is((await rawInit(ctx, ctx.access)).status, 200);
    const r = await fetch(`${ctx.s.url}/oauth/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: ctx.refresh, token_type_hint: 'refresh_token', client_id: ctx.client.info!.client_id }),
    });
    assert.is(r.status, 200);
    const after = await rawInit(ctx, ctx.access);
    assert.is(after.status, 401);
    assert.ok(after.headers.get('www-authenticate'));
  });

  t('denying on the consent page sends the client access_denied', async (ctx) => {
    ctx.client.saved = undefined;
    try {
      await connect(ctx);
      assert.unreachable('no token any more');
    } catch (err) {
      assert.instance(err, UnauthorizedError);
    }
    await ctx.page.goto(ctx.client.authorizationUrl!.href);
    await ctx.page.getByTestId('deny').waitFor();
    const callback = ctx.cb.next();
    await ctx.page.getByTestId('deny').click();
    const q = await callback.catch(async (e) => {
      throw new Error(`${e.message}; page ${ctx.page.url()}: ${await ctx.page.content()}`);
    });
    assert.is(q.get('error'), 'access_denied');
    assert.is(q.get('code'), null);
  });

  t('approving with a new agent needs its name, registers it, and the token acts as it', async (ctx) => {
    try {
      await connect(ctx);
    } catch {}
    await ctx.page.goto(ctx.client.authorizationUrl!.href);
    await ctx.page.getByTestId('agent-picker').selectOption('');
    // Without a name the form is refused with a page and the way back.
    await ctx.page.getByTestId('approve').click();
    assert.match((await ctx.page.getByTestId('refusal').textContent()) ?? '', /name the new agent/);
    await ctx.page.getByRole('link', { name: 'Back to the request' }).click();
    await ctx.page.getByTestId('agent-picker').selectOption('');
    await ctx.page.getByTestId('new-agent-name').fill('Remote Helper');
    const callback = ctx.cb.next();
    await ctx.page.getByTestId('approve').click();
    const q = await callbackOf(ctx, callback);
    const transport = new StreamableHTTPClientTransport(new URL(`${ctx.s.url}/v1/mcp`), { authProvider: ctx.client });
    await transport.finishAuth(q.get('code')!);
    const id = await whoami(ctx);
    const agent = await ctx.s.req('GET', `/v1/agents/${id}`, { token: ADMIN });
    assert.is(agent.status, 200, agent.text);
    assert.is(agent.body.name, 'Remote Helper');
  });

  t('replaying a spent refresh token is refused and ends the grant', async (ctx) => {
    const spent = ctx.client.saved!.refresh_token!;
    assert.is(await auth(ctx.client, { serverUrl: `${ctx.s.url}/v1/mcp` }), 'AUTHORIZED');
    const live = ctx.client.saved!.access_token;
    assert.is((await rawInit(ctx, live)).status, 200);
    const replay = await fetch(`${ctx.s.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: spent, client_id: ctx.client.info!.client_id }),
    });
    assert.is(replay.status, 400);
    assert.is(((await replay.json()) as Json).error, 'invalid_grant');
    assert.is((await rawInit(ctx, live)).status, 401, 'the grant is revoked with its tokens');
  });

  t.run();
}
