// The MCP tool `react` through a real MCP client (`svc mcp` over stdio as agent beta): adds a
// reaction as beta, answers an unchanged repeat, takes it back, and reports a refusal as a tool
// error; the reaction wakes nobody (beta's wait sees only messages).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMcp, type McpSession } from '../helpers/mcp.js';
import { roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const ALPHA = TOKENS.alphaOnly.value;
const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };

interface Ctx {
  s: AppServer;
  dir: string;
  m: McpSession;
}

const t = suite<Ctx>('the MCP tool react');

t.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      auth: {
        tokens: [
          ...Object.values(TOKENS).map((x) => ({ ...x, scopes: [...x.scopes], ...('agents' in x ? { agents: [...x.agents] } : {}) })),
          BETA,
        ],
      },
      rooms: [
        { id: 'general', members: ['alpha', 'beta'] },
        { id: 'lobby', members: ['alpha'] },
      ],
    },
  });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-mcp-react-'));
  ctx.m = await startMcp(['--url', ctx.s.url, '--agent', 'beta', '--state-dir', ctx.dir], { SVC_TOKEN: BETA.value });
  await ctx.m.waitFor(/attached as beta/);
});
t.after(async (ctx) => {
  await ctx.m.close();
  await ctx.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

async function say(s: AppServer, room: string, text: string): Promise<string> {
  const r = await s.post('/v1/messages', roomMessage(room, 'alpha', text), ALPHA);
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

t('react adds a reaction as this agent, and a repeat changes nothing', async ({ s, m }) => {
  const id = await say(s, 'general', 'build is green');
  const r = await m.call('react', { message_id: id, emoji: '👍' });
  assert.not.ok(r.isError, r.text);
  assert.is(r.text, `reacted 👍 on ${id} · now 👍 1`);
  const sc = r.structuredContent as Json;
  assert.is(sc.by, 'testnet:beta');
  assert.equal(sc.reactions, [{ emoji: '👍', count: 1, by: ['testnet:beta'] }]);
  const again = await m.call('react', { message_id: id, emoji: '👍' });
  assert.is(again.text, `already reacted 👍 on ${id} · now 👍 1`);
  const h = await s.get('/v1/rooms/general/messages?limit=1', ALPHA);
  assert.equal(h.body.messages[0].reactions, [{ emoji: '👍', count: 1, by: ['testnet:beta'] }]);
  // read_messages shows them under the message.
  const read = await m.call('read_messages', { room_id: 'general', limit: 1 });
  assert.match(read.text, /\n {2}reactions: 👍 1 \(beta\)/);
  assert.equal((read.structuredContent as Json).messages[0].reactions, [{ emoji: '👍', count: 1, by: ['testnet:beta'] }]);
});

t('react with remove takes it back', async ({ s, m }) => {
  const id = await say(s, 'general', 'take it back');
  await m.call('react', { message_id: id, emoji: ':eyes:' });
  const r = await m.call('react', { message_id: id, emoji: ':eyes:', remove: true });
  assert.not.ok(r.isError, r.text);
  assert.is(r.text, `removed :eyes: on ${id} · no reactions left`);
});

t('a refusal is a tool error with the server’s reason', async ({ s, m }) => {
  const id = await say(s, 'lobby', 'beta is not in here');
  const r = await m.call('react', { message_id: id, emoji: '👍' });
  assert.ok(r.isError);
  assert.match(r.text, /403|forbidden|member/);
  const bad = await m.call('react', { message_id: id, emoji: 'thumbs up' });
  assert.ok(bad.isError);
  assert.match(bad.text, /emoji/);
});

t('a reaction to beta’s message does not wake beta', async ({ s, m }) => {
  const mine = await m.call('send_message', { room_id: 'general', text: 'my own message' });
  assert.not.ok(mine.isError, mine.text);
  const id = (mine.structuredContent as Json).message_id as string;
  const r = await s.req('PUT', `/v1/messages/${id}/reactions/${encodeURIComponent('🎉')}`, {
    token: ALPHA,
    body: { from: { type: 'agent', id: 'alpha' } },
  });
  assert.is(r.status, 200, r.text);
  const w = await m.call('wait_for_messages', { timeout_s: 1 });
  assert.not.ok(w.isError, w.text);
  assert.equal((w.structuredContent as Json).messages ?? [], []);
});

t.run();
