// A /v1/mcp request that is one wait_for_messages call is answered without the SDK (src/mcp-http/
// wait-call.ts), and must be what the SDK's transport would have answered: the same status,
// headers and SSE bytes, and every message the SDK refuses (or answers otherwise) left to the SDK.
// A batch of one call is always the SDK's, so it is the reference.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  token: string;
}

const test = suite<Ctx>('/v1/mcp answers a lone wait call as the SDK would');
test.before(async (ctx) => {
  ctx.s = await startApp({ config: { store: { backend: 'memory' }, auth: { agent_registration: 'open' } } });
  const r = await ctx.s.post('/v1/agents/register', { requested_agent_id: 'waiter' });
  assert.is(r.status, 200, r.text);
  ctx.token = r.body.agent_token as string;
});
test.after(async (ctx) => ctx.s?.dispose());

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };

const waitCall = (over: Json = {}, params: Json = {}): Json => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'wait_for_messages', arguments: { timeout_s: 0 }, _meta: { progressToken: 'p1' }, ...params },
  ...over,
});

async function post(ctx: Ctx, body: unknown) {
  const r = await fetch(`${ctx.s.url}/v1/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, authorization: `Bearer ${ctx.token}` },
    body: JSON.stringify(body),
  });
  // Every header but those that differ per request.
  const headers = Object.fromEntries([...r.headers].filter(([h]) => h !== 'date' && h !== 'x-request-id'));
  return { status: r.status, headers, text: await r.text() };
}

/** The JSON-RPC messages of an SSE answer. */
const messages = (text: string): Json[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));

test('the same status, headers and bytes as the SDK answers the same call', async (ctx) => {
  const own = await post(ctx, waitCall());
  const sdk = await post(ctx, [waitCall()]);
  assert.is(own.status, 200, own.text);
  assert.equal(own.headers, sdk.headers);
  assert.is(own.text, sdk.text);
  assert.is(messages(own.text)[0].id, 7);
});

test('a message the SDK refuses or answers otherwise is left to it', async (ctx) => {
  // Not a JSON-RPC request to the SDK: a fractional id, a key the envelope does not have, a
  // progress token that is neither a string nor an integer.
  for (const body of [waitCall({ id: 1.5 }), waitCall({ extra: true }), waitCall({}, { _meta: { progressToken: 1.5 } })]) {
    const r = await post(ctx, body);
    assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.is(JSON.parse(r.text).error.code, -32700);
  }
  // Arguments the tool's schema refuses (a default fills only an absent value): a tool error.
  const r = await post(ctx, waitCall({}, { arguments: { timeout_s: null } }));
  assert.is(r.status, 200, r.text);
  const result = messages(r.text).find((m) => m.id === 7)?.result;
  assert.ok(result?.isError, r.text);
});

test.run();
