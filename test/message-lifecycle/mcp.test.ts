// The MCP tools edit_message and delete_message (#40 parts 1 and 2) through the SDK's own client, on
// both ways svc serves MCP: `svc mcp` over stdio as agent beta, and /v1/mcp over Streamable HTTP
// with a static token that acts as gamma. Each edits its own message (text, then parts) as its agent, sees the
// edit in read_messages, is refused someone else's message and bad arguments as tool errors, and
// deletes its message, leaving a tombstone that a second delete answers and an edit cannot touch.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMcp, type McpSession } from '../helpers/mcp.js';
import { connectMcpHttp, type McpHttpSession } from '../helpers/mcp-http.js';
import { roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };
const GAMMA = { id: 'gamma-bot', value: 'tok-gammabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['gamma'] };

interface Ctx {
  s: AppServer;
  dir: string;
  stdio: McpSession;
  http: McpHttpSession;
}

const t = suite<Ctx>('the MCP tools edit_message and delete_message');

t.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      auth: {
        tokens: [
          ...Object.values(TOKENS).map((x) => ({ ...x, scopes: [...x.scopes], ...('agents' in x ? { agents: [...x.agents] } : {}) })),
          BETA,
          GAMMA,
        ],
      },
      rooms: [{ id: 'general', members: ['alpha', 'beta', 'gamma'] }],
    },
  });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-mcp-lifecycle-'));
  ctx.stdio = await startMcp(['--url', ctx.s.url, '--agent', 'beta', '--state-dir', ctx.dir], { SVC_TOKEN: BETA.value });
  await ctx.stdio.waitFor(/attached as beta/);
  ctx.http = await connectMcpHttp(ctx.s.url, GAMMA.value);
});
t.after(async (ctx) => {
  await ctx.stdio?.close();
  await ctx.http?.close();
  await ctx.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

type Session = Pick<McpSession, 'call' | 'client'>;
const TRANSPORTS: readonly { name: string; agent: string; session: (ctx: Ctx) => Session }[] = [
  { name: 'svc mcp (stdio)', agent: 'beta', session: (ctx) => ctx.stdio },
  { name: '/v1/mcp (HTTP)', agent: 'gamma', session: (ctx) => ctx.http },
];

async function stored(s: AppServer, id: string): Promise<Json> {
  const r = await s.get('/v1/rooms/general/messages?limit=100', ADMIN);
  assert.is(r.status, 200, r.text);
  return r.body.messages.find((m: Json) => m.id === id);
}

async function sendAs(m: Session, text: string): Promise<string> {
  const r = await m.call('send_message', { room_id: 'general', text });
  assert.not.ok(r.isError, r.text);
  return (r.structuredContent as Json).message_id as string;
}

for (const tr of TRANSPORTS) {
  t(`${tr.name}: both tools are listed with their input schemas`, async (ctx) => {
    const { tools } = await tr.session(ctx).client.listTools();
    const edit = tools.find((x) => x.name === 'edit_message');
    const del = tools.find((x) => x.name === 'delete_message');
    assert.ok(edit && del, tools.map((x) => x.name).join());
    assert.equal(edit.inputSchema.required, ['message_id']);
    assert.equal(Object.keys(edit.inputSchema.properties ?? {}).sort(), ['expect_version', 'mentions', 'message_id', 'parts', 'text']);
    assert.is((edit.inputSchema.properties as Json).parts.type, 'array');
    assert.equal(del.inputSchema.required, ['message_id']);
    assert.is(del.annotations?.destructiveHint, true);
  });

  t(`${tr.name}: edit_message edits this agent's message with text, then parts`, async (ctx) => {
    const m = tr.session(ctx);
    const id = await sendAs(m, 'the answer is 41');
    const r = await m.call('edit_message', { message_id: id, text: 'the answer is 42' });
    assert.not.ok(r.isError, r.text);
    assert.is(r.text, `edited ${id} · now version 2`);
    const sc = r.structuredContent as Json;
    assert.is(sc.message_id, id);
    assert.is(sc.version, 2);
    assert.type(sc.edited_at, 'string');
    assert.is(sc.message.text, 'the answer is 42');
    assert.is(sc.message.from.id, tr.agent);
    let m2 = await stored(ctx.s, id);
    assert.equal(m2.parts, [{ kind: 'text', text: 'the answer is 42' }]);
    assert.equal(m2.from.id, tr.agent);

    const parts = [
      { kind: 'text', text: 'the answer is 42, see' },
      { kind: 'url', url: 'https://example.com/proof' },
    ];
    const p = await m.call('edit_message', { message_id: id, parts, expect_version: 2 });
    assert.not.ok(p.isError, p.text);
    assert.is((p.structuredContent as Json).version, 3);
    m2 = await stored(ctx.s, id);
    assert.equal(m2.parts, parts);
    const versions = await ctx.s.get(`/v1/messages/${id}/versions`, ADMIN);
    assert.equal(
      versions.body.items.map((v: Json) => v.parts[0].text),
      ['the answer is 41', 'the answer is 42'],
    );

    // read_messages shows the edit on the message's line.
    const read = await m.call('read_messages', { room_id: 'general', limit: 1 });
    assert.match(read.text, new RegExp(`- ${id} · .* · edited \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ:\\n {2}the answer is 42, see`));
    assert.is((read.structuredContent as Json).messages[0].version, 3);
  });

  t(`${tr.name}: someone else's message, a stale version and bad arguments are tool errors`, async (ctx) => {
    const m = tr.session(ctx);
    const r = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'alpha wrote this'), ALPHA);
    assert.is(r.status, 200, r.text);
    const theirs = r.body.message_id as string;
    const edit = await m.call('edit_message', { message_id: theirs, text: 'not mine' });
    assert.ok(edit.isError, edit.text);
    // Over stdio the text is the HTTP client's (`403 forbidden: ...`); in process it is the server's own.
    assert.match(edit.text, /only the sender of message/);
    const del = await m.call('delete_message', { message_id: theirs });
    assert.ok(del.isError, del.text);
    assert.match(del.text, /only the sender of message/);
    assert.equal((await stored(ctx.s, theirs)).parts, [{ kind: 'text', text: 'alpha wrote this' }]);

    const mine = await sendAs(m, 'mine');
    const stale = await m.call('edit_message', { message_id: mine, text: 'late', expect_version: 4 });
    assert.ok(stale.isError, stale.text);
    assert.match(stale.text, /edited meanwhile \(version 1, not 4\)/);
    const neither = await m.call('edit_message', { message_id: mine });
    assert.ok(neither.isError, neither.text);
    assert.match(neither.text, /pass the new text \(text\) or the new parts \(parts\)/);
    const both = await m.call('edit_message', { message_id: mine, text: 'a', parts: [{ kind: 'text', text: 'b' }] });
    assert.ok(both.isError, both.text);
    assert.match(both.text, /text or parts, not both/);
    const badPart = await m.call('edit_message', { message_id: mine, parts: [{ kind: 'url' }] });
    assert.ok(badPart.isError, badPart.text);
    assert.match(badPart.text, /body\.parts\/0|body\.parts\[0\]|url/);
    const missing = await m.call('delete_message', { message_id: 'msg_nosuch' });
    assert.ok(missing.isError, missing.text);
    assert.match(missing.text, /message msg_nosuch not found/);
    assert.equal((await stored(ctx.s, mine)).parts, [{ kind: 'text', text: 'mine' }]);
  });

  t(`${tr.name}: delete_message leaves a tombstone; a second delete answers it; an edit is refused`, async (ctx) => {
    const m = tr.session(ctx);
    const id = await sendAs(m, 'a result that was wrong');
    const r = await m.call('delete_message', { message_id: id });
    assert.not.ok(r.isError, r.text);
    assert.is(r.text, `deleted ${id} · a tombstone stays in its place`);
    const sc = r.structuredContent as Json;
    assert.is(sc.message_id, id);
    assert.type(sc.deleted_at, 'string');
    const tomb = await stored(ctx.s, id);
    assert.equal(tomb.parts, []);
    assert.is(tomb.deleted_at, sc.deleted_at);
    const again = await m.call('delete_message', { message_id: id });
    assert.not.ok(again.isError, again.text);
    assert.is((again.structuredContent as Json).deleted_at, sc.deleted_at);
    const edit = await m.call('edit_message', { message_id: id, text: 'back' });
    assert.ok(edit.isError, edit.text);
    assert.match(edit.text, /was deleted; a deleted message cannot be edited/);
    const read = await m.call('read_messages', { room_id: 'general', limit: 1 });
    assert.match(read.text, new RegExp(`- ${id} · [^\\n]*:\\n {2}\\(deleted \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\)`));
    assert.not.match(read.text, /was wrong/);
  });
}

t.run();
