// Receipts through `svc mcp`: read_messages marks the conversation read for its agent (also on an
// operator token bound to it), and send_message can wait, bounded, for delivery.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMcp, type McpSession } from '../helpers/mcp.js';
import { attachAs } from '../helpers/live.js';
import { eventually, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const ALPHA: string = TOKENS.alphaOnly.value;
const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };
const CONFIG: Json = {
  auth: {
    agent_registration: 'open',
    tokens: [
      ...Object.values(TOKENS).map((x) => ({ ...x, scopes: [...x.scopes], ...('agents' in x ? { agents: [...x.agents] } : {}) })),
      BETA,
    ],
  },
  rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta'] }],
};

const t = suite<{ s: AppServer; dir: string; m: McpSession }>('receipts through svc mcp');
t.before(async (ctx) => {
  ctx.s = await startApp({ config: CONFIG });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-mcp-receipts-'));
  ctx.m = await startMcp(['--url', ctx.s.url, '--agent', 'beta', '--state-dir', path.join(ctx.dir, 'state')], { SVC_TOKEN: BETA.value });
  await ctx.m.waitFor(/attached as beta/);
});
t.after(async (ctx) => {
  await ctx.m.close();
  await ctx.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const stateOf = async (s: AppServer, id: string, reader: string) => {
  const r = await s.get(`/v1/messages/${id}/receipts`, ALPHA);
  assert.is(r.status, 200, r.text);
  return (r.body.receipts as Json[]).find((x) => x.reader.id === reader)?.state;
};

t('read_messages marks what it read as read by its agent', async ({ s, m }) => {
  const r = await s.req('POST', '/v1/messages', {
    token: ALPHA,
    body: {
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: 'read me' }],
    },
  });
  assert.is(r.status, 200, r.text);
  const read = await m.call('read_messages', { room_id: 'general' });
  assert.not.ok(read.isError, read.text);
  await eventually(async () => (await stateOf(s, r.body.message_id, 'beta')) === 'read', 5000, 'beta read');
});

t('send_message waits for delivery up to its bound, and says who is still pending', async ({ s, m }) => {
  const lonely = await m.call('send_message', { room_id: 'general', text: 'anyone?', wait_for_delivery_s: 1 });
  assert.not.ok(lonely.isError, lonely.text);
  const d = (lonely.structuredContent as Json).delivery;
  assert.equal(d, { delivered: [], pending: ['alpha'], timed_out: true });
  assert.match(lonely.text, 'still pending: alpha');

  // alpha's runtime attaches and acknowledges every event it is sent.
  const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'alpha' } }, { token: ALPHA });
  c.ws.on('message', (data) => {
    const f = JSON.parse(data.toString());
    if (f.op === 'EVENT') c.ack(f.cursor);
  });
  const heard = await m.call('send_message', { room_id: 'general', text: 'now?', wait_for_delivery_s: 10 }, 20_000);
  assert.not.ok(heard.isError, heard.text);
  assert.equal((heard.structuredContent as Json).delivery, { delivered: ['alpha'], pending: [], timed_out: false });
  assert.match(heard.text, 'delivered to alpha');
  await c.close();
});

t.run();
