// Receipts are a feature (#39 part 2): the app started with the receipts feature left out of its
// list serves no receipt routes and writes no receipts when messages are delivered over the
// WebSocket attachment, an agent's SSE stream or an MCP wait, or read through the history, while
// messaging works as before. The same steps with the full list write the receipts, so the test
// shows the paths it walks are the ones that mark. The app runs in this process on a memory store.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { createApp } from '../../src/app.js';
import type { App, FeatureFactory } from '../../src/feature.js';
import { defaultFeatures } from '../../src/features.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { receiptsFeature } from '../../src/receipts/feature.js';
import { FLUSH_MS } from '../../src/receipts/writer.js';
import { receiptsPart } from '../../src/store/receipts/part.js';
import { eventually, testConfig, TOKENS, type Json, type Res, type TestServer } from '../helpers/server.js';
import { claimThenJoin } from '../helpers/claim.js';
import { attachAs, SseClient } from '../helpers/live.js';
import { connectMcpHttp } from '../helpers/mcp-http.js';

const ADMIN: string = TOKENS.admin.value;
const CONV = 'room:general';

/** The app on port 0 with `features`, and the parts of a TestServer the helpers use. */
async function start(features: readonly FeatureFactory[]): Promise<{ app: App; s: TestServer }> {
  const raw = testConfig({
    store: { backend: 'memory' },
    auth: { agent_registration: 'open' },
    rooms: [{ id: 'general', members: ['alpha'] }],
  });
  const app = await createApp(parseConfig(raw, { baseDir: tmpdir(), env: {} }), { log: silentLogger, features });
  const { port } = await app.listen('127.0.0.1:0');
  const url = `http://127.0.0.1:${port}`;
  const req = async (method: string, p: string, o: { token?: string; body?: unknown } = {}): Promise<Res> => {
    const headers: Record<string, string> = o.token ? { authorization: `Bearer ${o.token}` } : {};
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(`${url}${p}`, { method, headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
    const text = await r.text();
    let body: Json;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: r.status, text, body, headers: r.headers };
  };
  const s = {
    url,
    port,
    networkId: 'testnet',
    req,
    get: (p: string, token?: string) => req('GET', p, { ...(token ? { token } : {}) }),
    post: (p: string, body: unknown, token?: string) => req('POST', p, { body, ...(token ? { token } : {}) }),
  } as unknown as TestServer;
  return { app, s };
}

/**
 * One message delivered every way: alpha's attachment receives and ACKs it, beta's own SSE stream
 * writes it, gamma's MCP wait hands it over (it mentions gamma), and alpha reads the room's
 * history. Messaging must work whatever the feature list; answers the message id.
 */
async function deliverEveryWay(s: TestServer): Promise<string> {
  const beta = (await claimThenJoin(s, 'beta', ['general'])).body.agent_token as string;
  const gamma = (await claimThenJoin(s, 'gamma', ['general'])).body.agent_token as string;
  const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'alpha' } }, { token: TOKENS.alphaOnly.value });
  const sse = await SseClient.open(s, { token: beta });
  assert.is(sse.status, 200, sse.body);
  const mcp = await connectMcpHttp(s.url, gamma);
  try {
    await mcp.call('wait_for_messages', { timeout_s: 0 }); // gamma's read state starts now
    const sent = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'general' }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text: 'hello @gamma' }] },
      ADMIN,
    );
    assert.is(sent.status, 200, sent.text);
    const id = sent.body.message_id as string;
    const frame = await c.message('hello @gamma');
    c.ack(frame.cursor);
    await sse.next((f) => f.event === 'message.created' && f.json?.message?.id === id, 5000);
    const waited = await mcp.call('wait_for_messages', { timeout_s: 5 });
    assert.not.ok(waited.isError, waited.text);
    assert.equal(
      ((waited.structuredContent as Json).messages as Json[]).map((m) => m.id),
      [id],
    );
    // alpha's operator-issued token reads as alpha when it says so.
    const history = await s.get('/v1/rooms/general/messages?as=alpha', TOKENS.alphaOnly.value);
    assert.is(history.status, 200, history.text);
    assert.ok((history.body.messages as Json[]).some((m) => m.id === id));
    return id;
  } finally {
    await mcp.close();
    sse.close();
    await c.close();
  }
}

/** The stored receipt marks of the room, as `reader kind`. */
async function marks(app: App): Promise<string[]> {
  // A store opened without the receipts part (the feature off) keeps none.
  return ((await app.ctx.store.part(receiptsPart)?.list(CONV)) ?? []).map((r) => `${r.reader} ${r.kind}`).sort();
}

async function receiptEvents(app: App): Promise<number> {
  return (await app.ctx.store.eventsAfter(0, 10_000)).filter((e) => e.event.type === 'message.receipts').length;
}

const t = suite('receipts as a feature');

t('with the receipts feature, the same deliveries and read are marked and its routes answer', async () => {
  const { app, s } = await start(defaultFeatures);
  try {
    const id = await deliverEveryWay(s);
    const all = ['agent:alpha delivered', 'agent:alpha read', 'agent:beta delivered', 'agent:gamma delivered'];
    await eventually(async () => JSON.stringify(await marks(app)) === JSON.stringify(all), 5000, `marks ${all.join(', ')}`);
    assert.ok((await receiptEvents(app)) > 0);
    assert.is((await s.get(`/v1/messages/${id}/receipts`, ADMIN)).status, 200);
  } finally {
    await app.close();
  }
});

t('without it, no receipt route is served and nothing is marked, while messages are delivered', async () => {
  const { app, s } = await start(defaultFeatures.filter((f) => f !== receiptsFeature));
  try {
    assert.is(app.ctx.extensions.receipts, undefined);
    assert.is(app.ctx.store.part(receiptsPart), undefined, 'the store keeps no receipts');
    const id = await deliverEveryWay(s);
    const got = await s.get(`/v1/messages/${id}/receipts`, ADMIN);
    assert.is(got.status, 404, got.text);
    assert.is(got.body.code, 'not_found');
    const read = await s.req('POST', `/v1/messages/${id}/read`, { token: TOKENS.alphaOnly.value });
    assert.is(read.status, 404, read.text);
    // Marks would be written in batches every FLUSH_MS: a few of those pass, and none is.
    await new Promise((r) => setTimeout(r, 3 * FLUSH_MS));
    assert.equal(await marks(app), []);
    assert.is(await receiptEvents(app), 0);
  } finally {
    await app.close();
  }
});

t('two features providing receipts are refused when the app is made', async () => {
  const twice = [...defaultFeatures, receiptsFeature];
  let err: unknown;
  try {
    await (await start(twice)).app.close();
  } catch (e) {
    err = e;
  }
  assert.match(String(err), /two features provide receipts; only one may/);
});

t.run();
