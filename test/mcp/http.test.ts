// /v1/mcp driven by the SDK's own MCP client over Streamable HTTP against a real `svc serve`:
// initialize, every tool, wait_for_messages live, nothing returned twice across a restart (the
// cursor and read markers are in the store), who a token acts as, the bound on concurrent waits,
// and the same admission gate as every route (401 counted toward the per-address limit, 413).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connectMcpHttp, type McpHttpSession } from '../helpers/mcp-http.js';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { claimThenJoin } from '../helpers/claim.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const GENERAL = { kind: 'room', room_id: 'general' };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

const CONFIG: Json = {
  auth: { agent_registration: 'open' },
  rooms: [
    // beta joins general once claimed: a declared member's id is reserved for the operator's credentials.
    { id: 'general', name: 'General', members: ['alpha'] },
    { id: 'lobby', name: 'Lobby', members: ['alpha'] },
  ],
};

interface Ctx {
  s: AppServer;
  /** beta's own agent token (registered once). */
  beta: string;
}

async function say(s: AppServer, target: Json, text: string): Promise<string> {
  const r = await s.req('POST', '/v1/messages', {
    token: ALPHA,
    body: { target, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text }] },
  });
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

const ids = (r: { structuredContent?: Json }): string[] => (r.structuredContent?.messages ?? []).map((m: Json) => m.id);

const t = suite<Ctx>('/v1/mcp with the SDK client over Streamable HTTP (sqlite)');

t.before(async (ctx) => {
  ctx.s = await startApp({ config: CONFIG });
  const reg = await claimThenJoin(ctx.s, 'beta', ['general'], 'Beta');
  ctx.beta = reg.body.agent_token;
});
t.after(async (ctx) => {
  await ctx.s.dispose();
});

t('initialize names the server as the token agent and lists the eleven tools; GET and DELETE are 405', async (ctx) => {
  const m = await connectMcpHttp(ctx.s.url, ctx.beta);
  try {
    assert.is(m.client.getServerVersion()?.name, 'svc');
    assert.is(m.client.getServerVersion()?.title, 'svc agent beta');
    const tools = (await m.client.listTools()).tools.map((x) => x.name).sort();
    assert.equal(tools, [
      'create_upload_url',
      'delete_message',
      'edit_message',
      'list_conversations',
      'react',
      'read_messages',
      'search_messages',
      'send_file',
      'send_message',
      'wait_for_messages',
      'whoami',
    ]);
    // Stateless: no resource subscriptions (there is no stream to announce an update on).
    assert.not.ok(m.client.getServerCapabilities()?.resources?.subscribe);
  } finally {
    await m.close();
  }
  for (const method of ['GET', 'DELETE']) {
    const r = await ctx.s.req(method, '/v1/mcp', { token: ctx.beta, headers: { accept: 'text/event-stream' } });
    assert.is(r.status, 405, `${method}: ${r.text}`);
    assert.is(r.headers.get('allow'), 'POST');
  }
});

t(
  'every tool acts as the agent of the token: whoami, send_message, read_messages, list_conversations, search_messages, react',
  async (ctx) => {
    const m = await connectMcpHttp(ctx.s.url, ctx.beta);
    try {
      const who = await m.call('whoami');
      assert.not.ok(who.isError, who.text);
      assert.is((who.structuredContent as Json).agent.id, 'beta');
      assert.equal((who.structuredContent as Json).rooms, ['general']);

      const sent = await m.call('send_message', { room_id: 'general', text: 'hello from a remote beta, zebrafish' });
      assert.not.ok(sent.isError, sent.text);
      const stored = await ctx.s.get(`/v1/rooms/general/messages?limit=100`, ADMIN);
      const mine = stored.body.messages.find((x: Json) => x.id === (sent.structuredContent as Json).message_id);
      assert.ok(mine, 'the message is stored');
      assert.is(mine.from.id, 'beta');

      await say(ctx.s, GENERAL, 'a room message beta has not read');
      let list = await m.call('list_conversations');
      const general = () => (list.structuredContent as Json).conversations.find((c: Json) => c.conversation.room_id === 'general');
      assert.ok(general().unread >= 1, list.text);
      const read = await m.call('read_messages', { room_id: 'general' });
      assert.not.ok(read.isError, read.text);
      assert.match(read.text, /a room message beta has not read/);
      list = await m.call('list_conversations');
      assert.is(general().unread, 0, 'reading the newest page marks the room read');

      const found = await m.call('search_messages', { query: 'zebrafish' });
      assert.not.ok(found.isError, found.text);
      assert.equal(ids(found), [(sent.structuredContent as Json).message_id]);

      const reacted = await m.call('react', { message_id: (sent.structuredContent as Json).message_id, emoji: '👍' });
      assert.not.ok(reacted.isError, reacted.text);
      const reactions = await ctx.s.get(`/v1/messages/${(sent.structuredContent as Json).message_id}/reactions`, ADMIN);
      assert.equal(reactions.body.reactions, [{ emoji: '👍', count: 1, by: ['testnet:beta'] }]);

      // A room beta may not write to is a tool error carrying the server's reason.
      const refused = await m.call('send_message', { room_id: 'lobby', text: 'not a member' });
      assert.ok(refused.isError);
      assert.match(refused.text, /member|not allowed|403/i);
    } finally {
      await m.close();
    }
  },
);

t('wait_for_messages returns a mention sent while it waits, marks it delivered, and nothing twice', async (ctx) => {
  const m = await connectMcpHttp(ctx.s.url, ctx.beta);
  try {
    await m.call('wait_for_messages', { timeout_s: 0 }); // start from now
    const waiting = m.call('wait_for_messages', { timeout_s: 20 });
    await new Promise((r) => setTimeout(r, 400));
    const started = Date.now();
    const id = await say(ctx.s, GENERAL, 'are you there @beta?');
    const r = await waiting;
    assert.not.ok(r.isError, r.text);
    assert.equal(ids(r), [id]);
    assert.ok(Date.now() - started < 5000, 'the wait woke on the send');
    assert.is((r.structuredContent as Json).timed_out, false);
    const again = await m.call('wait_for_messages', { timeout_s: 0 });
    assert.equal(ids(again), [], 'a returned mention is not returned again');

    // Handed over by a wait: the mention's receipt says beta has it (written within a moment).
    let state: string | undefined;
    for (let i = 0; i < 50 && state !== 'delivered'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      const rc = await ctx.s.get(`/v1/messages/${id}/receipts`, ADMIN);
      state = (rc.body.receipts as Json[]).find((x) => x.reader.id === 'beta')?.state;
    }
    assert.is(state, 'delivered');

    // The inbox resource shows what the next wait would return, without consuming it.
    const uri = 'svc://testnet/agents/beta/inbox';
    const next = await say(ctx.s, GENERAL, 'for the inbox @beta');
    const inbox = await m.client.readResource({ uri });
    const json = inbox.contents.find((c) => c.mimeType === 'application/json') as { text: string };
    assert.equal(
      JSON.parse(json.text).messages.map((x: Json) => x.id),
      [next],
    );
    assert.equal(ids(await m.call('wait_for_messages', { timeout_s: 5 })), [next]);
    assert.match(((await m.client.readResource({ uri })).contents[0] as { text: string }).text, /No new mentions or DMs/);
  } finally {
    await m.close();
  }
});

t('no message is returned twice across a server restart, and none is lost: the cursor and read markers are in the store', async (ctx) => {
  let m = await connectMcpHttp(ctx.s.url, ctx.beta);
  const first = await say(ctx.s, GENERAL, 'before the restart @beta');
  const r1 = await m.call('wait_for_messages', { timeout_s: 5 });
  assert.ok(ids(r1).includes(first), r1.text);
  await m.call('read_messages', { room_id: 'general' });
  await m.close();

  await ctx.s.restart();
  // Sent before beta connects again: a cursor started afresh would pass over both.
  const second = await say(ctx.s, GENERAL, 'after the restart @beta');
  await say(ctx.s, GENERAL, 'plain room traffic after the restart');
  m = await connectMcpHttp(ctx.s.url, ctx.beta);
  try {
    const list = await m.call('list_conversations');
    const general = (list.structuredContent as Json).conversations.find((c: Json) => c.conversation.room_id === 'general');
    assert.is(general.unread, 2, `the read marker was kept: ${list.text}`);
    const r2 = await m.call('wait_for_messages', { timeout_s: 5 });
    assert.equal(ids(r2), [second], 'the mention from before the restart is not returned again; the one since is');
    const empty = await m.call('wait_for_messages', { timeout_s: 0.5 });
    assert.equal(ids(empty), []);
  } finally {
    await m.close();
  }
});

t('a static token acts as the one agent its list names or as X-Svc-Agent; the admin token alone is refused 403', async (ctx) => {
  const alpha = await connectMcpHttp(ctx.s.url, ALPHA);
  try {
    assert.is(((await alpha.call('whoami')).structuredContent as Json).agent.id, 'alpha');
  } finally {
    await alpha.close();
  }
  const named = await connectMcpHttp(ctx.s.url, ADMIN, { 'x-svc-agent': 'ops' });
  try {
    assert.is(((await named.call('whoami')).structuredContent as Json).agent.id, 'ops');
  } finally {
    await named.close();
  }
  const bare = await ctx.s.req('POST', '/v1/mcp', { token: ADMIN, body: INIT, headers: MCP_HEADERS });
  assert.is(bare.status, 403, bare.text);
  assert.match(bare.body.error, /acts as one agent/);
  const other = await ctx.s.req('POST', '/v1/mcp', { token: ctx.beta, body: INIT, headers: { ...MCP_HEADERS, 'x-svc-agent': 'alpha' } });
  assert.is(other.status, 403, other.text);
  const outside = await ctx.s.req('POST', '/v1/mcp', { token: ALPHA, body: INIT, headers: { ...MCP_HEADERS, 'x-svc-agent': 'beta' } });
  assert.is(outside.status, 403, outside.text);
});

t('a wait whose client goes away ends and consumes nothing: the next wait gets the mention', async (ctx) => {
  const m = await connectMcpHttp(ctx.s.url, ctx.beta);
  try {
    await m.call('wait_for_messages', { timeout_s: 0 });
    const gone = new AbortController();
    const abandoned = m.client
      .callTool({ name: 'wait_for_messages', arguments: { timeout_s: 20 } }, undefined, { signal: gone.signal, timeout: 30_000 })
      .catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 400));
    gone.abort();
    await abandoned;
    await new Promise((r) => setTimeout(r, 300));
    const id = await say(ctx.s, GENERAL, 'after the abandoned wait @beta');
    assert.equal(ids(await m.call('wait_for_messages', { timeout_s: 5 })), [id], 'the abandoned wait did not take it');
  } finally {
    await m.close();
  }
});

t('one agent has at most four waits open at once: a fifth is a tool error at once', async (ctx) => {
  const sessions: McpHttpSession[] = [];
  try {
    for (let i = 0; i < 5; i++) sessions.push(await connectMcpHttp(ctx.s.url, ctx.beta));
    const open = sessions.slice(0, 4).map((x) => x.call('wait_for_messages', { timeout_s: 3 }));
    await new Promise((r) => setTimeout(r, 500));
    const fifth = await sessions[4]!.call('wait_for_messages', { timeout_s: 3 });
    assert.ok(fifth.isError, fifth.text);
    assert.match(fifth.text, /at most 4/);
    for (const r of await Promise.all(open)) assert.not.ok(r.isError, r.text);
  } finally {
    for (const x of sessions) await x.close();
  }
});

t('a body over 1 MiB is 413 and malformed JSON is 400, as on every route', async (ctx) => {
  const big = await ctx.s.req('POST', '/v1/mcp', {
    token: ctx.beta,
    raw: JSON.stringify({ ...INIT, pad: 'x'.repeat(1024 * 1024) }),
    headers: { ...MCP_HEADERS, 'content-type': 'application/json' },
  });
  assert.is(big.status, 413, big.text);
  const bad = await ctx.s.req('POST', '/v1/mcp', {
    token: ctx.beta,
    raw: '{"jsonrpc":',
    headers: { ...MCP_HEADERS, 'content-type': 'application/json' },
  });
  assert.is(bad.status, 400, bad.text);
});

t.run();

const limits = suite<{ s: AppServer }>('/v1/mcp behind the failed-authentication limit');
limits.before(async (ctx) => {
  // The memory store: the limit lives in the process.
  ctx.s = await startApp({ config: { ...CONFIG, store: { backend: 'memory' }, server: { limits: { auth_failures_per_minute: 3 } } } });
});
limits.after(async (ctx) => {
  await ctx.s.dispose();
});

limits('a bad bearer token is 401 and counts toward auth_failures_per_minute: 429 past the limit', async (ctx) => {
  for (let i = 0; i < 3; i++) {
    const r = await ctx.s.req('POST', '/v1/mcp', { token: `agt_v1_wrong${i}`, body: INIT, headers: MCP_HEADERS });
    assert.is(r.status, 401, r.text);
  }
  const limited = await ctx.s.req('POST', '/v1/mcp', { token: 'agt_v1_wrong-again', body: INIT, headers: MCP_HEADERS });
  assert.is(limited.status, 429, limited.text);
  assert.ok(limited.headers.get('retry-after'));
  // The same count covers the other routes: the address is limited there too.
  const elsewhere = await ctx.s.get('/v1/rooms', 'not-a-token');
  assert.is(elsewhere.status, 429, elsewhere.text);
});

limits.run();
