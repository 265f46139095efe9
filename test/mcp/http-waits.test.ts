// The bounds on open wait_for_messages calls of /v1/mcp (#38 item 9): besides four per agent, at
// most server.limits.mcp_waits_per_credential per credential (one token acting as many agents) and
// server.limits.mcp_waits_per_server on the instance (many self-registered agents, each its own
// credential). The next wait past a bound is a tool error that names the bound, with the SDK client.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connectMcpHttp, type McpHttpSession } from '../helpers/mcp-http.js';
import { eventually, TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const MULTI = { id: 'multi', value: 'tok-multi-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['w1', 'w2', 'w3'] };

interface Ctx {
  s: AppServer;
  open: McpHttpSession[];
}

const test = suite<Ctx>('/v1/mcp caps open waits per credential and per server');
test.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      store: { backend: 'memory' },
      server: { limits: { mcp_waits_per_credential: 2, mcp_waits_per_server: 3 } },
      auth: { agent_registration: 'open', tokens: [...Object.values(TOKENS), MULTI] },
    },
  });
  ctx.open = [];
});
test.after.each(async (ctx) => {
  await Promise.all(ctx.open.splice(0).map((m) => m.close().catch(() => undefined)));
});
test.after(async (ctx) => ctx.s?.dispose());

/** Starts a wait that stays open (its answer is not awaited); the session is closed after the test. */
async function holdWait(ctx: Ctx, token: string, headers: Record<string, string> = {}): Promise<void> {
  const m = await connectMcpHttp(ctx.s.url, token, headers);
  ctx.open.push(m);
  void m.call('wait_for_messages', { timeout_s: 300 }, 400_000).catch(() => undefined);
}

/**
 * Calls a short wait until it is refused: the held waits count once their requests reached the
 * server, which the client does not say; an accepted probe just returns after its second.
 */
async function refusedWait(m: McpHttpSession): Promise<string> {
  return eventually<string | undefined>(
    async () => {
      const r = await m.call('wait_for_messages', { timeout_s: 1 });
      return r.isError ? r.text : undefined;
    },
    30_000,
    'a refused wait',
  ) as Promise<string>;
}

const agentToken = async (s: AppServer, id: string): Promise<string> => {
  const r = await s.post('/v1/agents/register', { requested_agent_id: id });
  assert.is(r.status, 200, r.text);
  return r.body.agent_token as string;
};

test('one credential acting as several agents holds at most mcp_waits_per_credential waits', async (ctx) => {
  await holdWait(ctx, MULTI.value, { 'x-svc-agent': 'w1' });
  await holdWait(ctx, MULTI.value, { 'x-svc-agent': 'w2' });
  const third = await connectMcpHttp(ctx.s.url, MULTI.value, { 'x-svc-agent': 'w3' });
  ctx.open.push(third);
  const text = await refusedWait(third);
  assert.match(
    text,
    /this credential already has 2 wait_for_messages calls open on this server \(at most 2, server\.limits\.mcp_waits_per_credential\)/,
  );
  // Another credential is not held back by this one's bound.
  const other = await connectMcpHttp(ctx.s.url, await agentToken(ctx.s, 'loner'));
  ctx.open.push(other);
  const r = await other.call('wait_for_messages', { timeout_s: 0 });
  assert.not.ok(r.isError, r.text);
});

test('all callers together hold at most mcp_waits_per_server waits; a closed wait frees its place', async (ctx) => {
  const tokens = await Promise.all(['s1', 's2', 's3', 's4'].map((id) => agentToken(ctx.s, id)));
  // The previous test's held waits end with their sessions: wait until the server counts none.
  const fourth = await connectMcpHttp(ctx.s.url, tokens[3]!);
  ctx.open.push(fourth);
  for (const t of tokens.slice(0, 3)) await holdWait(ctx, t);
  const text = await refusedWait(fourth);
  assert.match(text, /this server already has 3 wait_for_messages calls open \(at most 3, server\.limits\.mcp_waits_per_server\)/);
  // Closing the held sessions ends their waits on the server: the fourth agent's wait runs then.
  const held = ctx.open.splice(1);
  await Promise.all(held.map((m) => m.close()));
  await eventually(async () => !(await fourth.call('wait_for_messages', { timeout_s: 0 })).isError, 30_000, 'the freed places');
});

test('a DM a wait hands over is marked read: an open wait reads the read state only when it returns', async (ctx) => {
  const reader = await connectMcpHttp(ctx.s.url, await agentToken(ctx.s, 'dm-reader'));
  const writer = await connectMcpHttp(ctx.s.url, await agentToken(ctx.s, 'dm-writer'));
  ctx.open.push(reader, writer);
  // The reader has a read state (and a marker) before its wait opens; the DM comes while it is open.
  const before = await reader.call('list_conversations');
  assert.not.ok(before.isError, before.text);
  const waiting = reader.call('wait_for_messages', { timeout_s: 60 }, 90_000);
  await new Promise((r) => setTimeout(r, 300));
  const dm = await writer.call('send_message', { dm_with: ['dm-reader'], text: 'a word in private' });
  assert.not.ok(dm.isError, dm.text);
  const got = await waiting;
  assert.not.ok(got.isError, got.text);
  assert.match(got.text, /a word in private/);
  const list = await reader.call('list_conversations');
  const conv = (list.structuredContent as { conversations: { conversation: { kind: string }; unread: number }[] }).conversations.find(
    (c) => c.conversation.kind === 'dm',
  );
  assert.ok(conv, list.text);
  assert.is(conv.unread, 0, `the DM the wait returned is read: ${list.text}`);
});

test.run();
