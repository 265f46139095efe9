// /v1/mcp for MCP 2026-07-28 with clients nobody here wrote: the 2.x SDK client (pinned to the
// revision: server/discover, per-request _meta, no initialize, no session) calls every tool and is
// told of a new DM through subscriptions/listen; the 1.x SDK client still connects with initialize
// to the same endpoint; the MCP Inspector CLI lists the tools and calls one. Also the Server Card
// and the catalog that points at it.

import { execFile } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, type Client, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { connectMcpHttp, connectMcpHttp2026, nextResourceUpdate } from '../helpers/mcp-http.js';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';

const ALPHA = TOKENS.alphaOnly.value;
const INSPECTOR = new URL('../../node_modules/.bin/mcp-inspector-cli', import.meta.url).pathname;
const TEST_DIR = new URL('..', import.meta.url).pathname;

interface Ctx {
  s: AppServer;
  beta: string;
}

const t = suite<Ctx>('/v1/mcp speaks MCP 2026-07-28 beside the 2025 handshake (sqlite)');

t.before(async (ctx) => {
  ctx.s = await startApp({
    config: { auth: { agent_registration: 'open' }, rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] },
  });
  ctx.beta = (await claimThenJoin(ctx.s, 'beta', ['general'], 'Beta')).body.agent_token;
});
t.after(async (ctx) => ctx.s.dispose());

const textOf = (r: { content?: unknown }): string =>
  ((r.content ?? []) as { type: string; text?: string }[]).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; s: Json; isError: boolean }> {
  const r = await c.callTool({ name, arguments: args });
  return { text: textOf(r), s: (r.structuredContent ?? {}) as Json, isError: Boolean(r.isError) };
}

t(
  'the 2.x client negotiates 2026-07-28 and calls every tool, each answering structured output its schema declares',
  async ({ s, beta }) => {
    const c = await connectMcpHttp2026(s.url, beta);
    try {
      assert.is(c.getProtocolEra(), 'modern');
      assert.is(c.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.is(c.getServerVersion()?.title, 'svc agent beta');
      assert.ok(c.getServerVersion()?.icons?.[0]?.src.startsWith('data:image/svg+xml;base64,'));
      const tools = (await c.listTools()).tools;
      assert.is(tools.length, 11);
      for (const tool of tools) {
        assert.ok(tool.outputSchema, `${tool.name} declares an output schema`);
        assert.ok(tool.icons?.length, `${tool.name} has an icon`);
      }
      const who = await call(c, 'whoami');
      assert.is(who.s.agent.id, 'beta', who.text);
      const sent = await call(c, 'send_message', { room_id: 'general', text: 'hello from 2026, okapi' });
      assert.not.ok(sent.isError, sent.text);
      const id = sent.s.message_id as string;
      assert.ok((await call(c, 'list_conversations')).s.conversations.length >= 1);
      assert.ok((await call(c, 'read_messages', { room_id: 'general' })).s.messages.some((m: Json) => m.id === id));
      assert.is((await call(c, 'search_messages', { query: 'okapi' })).s.messages[0]?.id, id);
      assert.is((await call(c, 'react', { message_id: id, emoji: '👍' })).s.changed, true);
      assert.is((await call(c, 'edit_message', { message_id: id, text: 'hello from 2026, okapis' })).s.version, 2);
      const waited = await call(c, 'wait_for_messages', { timeout_s: 0 });
      assert.is(waited.s.timed_out, true, waited.text);
      const file = await call(c, 'send_file', { room_id: 'general', name: 'a.txt', content_base64: Buffer.from('hi').toString('base64') });
      assert.not.ok(file.isError, file.text);
      assert.match((await call(c, 'create_upload_url', { name: 'b.bin' })).s.upload_url, /^http/);
      assert.ok((await call(c, 'delete_message', { message_id: id })).s.deleted_at);
    } finally {
      await c.close();
    }
  },
);

t('a new DM reaches a 2026 client through subscriptions/listen on its inbox; another agent inbox is refused', async ({ s, beta }) => {
  const c = await connectMcpHttp2026(s.url, beta);
  try {
    const inbox = (await c.listResources()).resources.find((r) => r.name === 'inbox')!.uri;
    const updated = nextResourceUpdate(c);
    const sub = await c.listen({ resourceSubscriptions: [inbox] });
    assert.equal(sub.honoredFilter.resourceSubscriptions, [inbox]);
    const r = await s.req('POST', '/v1/messages', {
      token: ALPHA,
      body: {
        target: { kind: 'dm', participant_ids: ['alpha', 'beta'] },
        from: { type: 'agent', id: 'alpha' },
        parts: [{ kind: 'text', text: 'ping' }],
      },
    });
    assert.is(r.status, 200, r.text);
    assert.is(await updated, inbox);
    await sub.close();
    const waited = await call(c, 'wait_for_messages', { timeout_s: 5 });
    assert.is(waited.s.messages[0]?.text, 'ping', waited.text);
    const other = inbox.replace('/agents/beta/', '/agents/alpha/');
    const refused = await c.listen({ resourceSubscriptions: [other] }).then(
      () => 'opened',
      (err: Error) => err.message,
    );
    assert.match(refused, /not a resource of this agent/);
  } finally {
    await c.close();
  }
});

t(
  'on the wire: no session id, resultType, cache hints on tools/list, and a Mcp-Method header that contradicts the body is refused',
  async ({ s, beta }) => {
    const envelope = {
      [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
      [CLIENT_INFO_META_KEY]: { name: 'raw', version: '1' },
      [CLIENT_CAPABILITIES_META_KEY]: {},
    };
    const post = (method: string, header = method) =>
      fetch(`${s.url}/v1/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${beta}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': header,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: envelope } }),
      });
    const r = await post('tools/list');
    assert.is(r.status, 200);
    assert.is(r.headers.get('mcp-session-id'), null);
    const body = (await r.json()) as Json;
    assert.is(body.result.resultType, 'complete', JSON.stringify(body));
    assert.is(body.result.ttlMs, 3_600_000);
    assert.is(body.result.cacheScope, 'public');
    const wrong = (await (await post('tools/list', 'resources/list')).json()) as Json;
    assert.ok(wrong.error, JSON.stringify(wrong));
  },
);

t('the 1.x client still opens with initialize at the same endpoint', async ({ s, beta }) => {
  const m = await connectMcpHttp(s.url, beta);
  try {
    assert.is(m.client.getServerVersion()?.title, 'svc agent beta');
    const who = await m.call('whoami');
    assert.is((who.structuredContent as Json).agent.id, 'beta');
  } finally {
    await m.close();
  }
});

function inspector(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // The CLI looks for its package.json as `../package.json` of the working directory (then
    // imports it relative to itself), so it is run from a folder whose parent has one: test/.
    execFile(process.execPath, [INSPECTOR, '--cli', ...args], { timeout: 60_000, cwd: TEST_DIR }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

t('the Inspector CLI lists the tools and calls whoami over HTTP', async ({ s, beta }) => {
  const common = [`${s.url}/v1/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${beta}`];
  const list = JSON.parse(await inspector([...common, '--method', 'tools/list'])) as Json;
  assert.is(list.tools.length, 11);
  const who = JSON.parse(await inspector([...common, '--method', 'tools/call', '--tool-name', 'whoami'])) as Json;
  assert.is(who.structuredContent.agent.id, 'beta');
});

t('the Server Card is at /v1/mcp/server-card and the catalog at /.well-known/mcp/catalog.json points at it', async ({ s }) => {
  const card = await s.get('/v1/mcp/server-card');
  assert.is(card.status, 200, card.text);
  assert.match(card.headers.get('content-type') ?? '', /^application\/mcp-server-card\+json/);
  assert.is(card.headers.get('access-control-allow-origin'), '*');
  assert.is(card.body.$schema, 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json');
  assert.match(card.body.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  assert.equal(card.body.remotes[0].type, 'streamable-http');
  assert.is(card.body.remotes[0].url, `${s.url}/v1/mcp`);
  assert.ok(card.body.remotes[0].supportedProtocolVersions.includes('2026-07-28'));
  assert.ok(card.body.remotes[0].supportedProtocolVersions.includes('2025-06-18'));
  const catalog = await s.get('/.well-known/mcp/catalog.json');
  assert.is(catalog.status, 200, catalog.text);
  assert.is(catalog.body.entries[0].url, `${s.url}/v1/mcp/server-card`);
  assert.is(catalog.body.entries[0].type, 'application/mcp-server-card+json');
});

t.run();
