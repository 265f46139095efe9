// `svc mcp` driven by a real MCP client (the SDK's Client over stdio) against a real server, the
// app in the test process: initialize, tools/list, every tool, wait_for_messages live and across
// restarts, the inbox resource's update notifications, and tool errors that leave the server
// running.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cli, freePort } from '../helpers/cli.js';
import { startMcp, type McpSession } from '../helpers/mcp.js';
import { TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
/** alpha's own static token (the test config binds alpha to it). */
const ALPHA = TOKENS.alphaOnly.value;
/** beta's own static token: may act only as beta. */
const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };

interface Ctx {
  s: AppServer;
  dir: string;
  n: number;
  /** A fresh state folder per svc mcp identity (tests must not share a cursor by accident). */
  stateDir(): string;
  /** svc mcp as beta with its static token. */
  beta(stateDir: string): Promise<McpSession>;
  /** One svc mcp as beta for the tests that neither wait nor count unread (each a process less). */
  shared(): Promise<McpSession>;
  sharedSession?: Promise<McpSession>;
  endShared(): Promise<void>;
  /** alpha says something, with its own token. */
  say(target: Json, text: string, extra?: Json): Promise<string>;
}

const CONFIG: Json = {
  auth: {
    agent_registration: 'open',
    tokens: [
      ...Object.values(TOKENS).map((x) => ({ ...x, scopes: [...x.scopes], ...('agents' in x ? { agents: [...x.agents] } : {}) })),
      BETA,
    ],
  },
  rooms: [
    { id: 'general', name: 'General', members: ['alpha', 'beta'] },
    { id: 'lobby', name: 'Lobby', members: ['alpha'] },
  ],
};

const t = suite<Ctx>('svc mcp as agent beta, through a real MCP client');

t.before(async (ctx) => {
  // The memory store: nothing here restarts the server or reads its files.
  ctx.s = await startApp({ config: { ...CONFIG, store: { backend: 'memory' } } });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-mcp-'));
  ctx.n = 0;
  ctx.stateDir = () => path.join(ctx.dir, `state-${++ctx.n}`);
  ctx.beta = async (stateDir) => {
    // Never two of them attached as beta at once: a new session ends the shared one.
    await ctx.endShared();
    const m = await startMcp(['--url', ctx.s.url, '--agent', 'beta', '--state-dir', stateDir], { SVC_TOKEN: BETA.value });
    await m.waitFor(/attached as beta/);
    return m;
  };
  ctx.shared = () => (ctx.sharedSession ??= ctx.beta(ctx.stateDir()));
  ctx.endShared = async () => {
    const shared = ctx.sharedSession;
    ctx.sharedSession = undefined;
    await (await shared?.catch(() => undefined))?.close();
  };
  ctx.say = async (target, text, extra = {}) => {
    const r = await ctx.s.req('POST', '/v1/messages', {
      token: ALPHA,
      body: { target, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text }], ...extra },
    });
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
});
t.after(async (ctx) => {
  await ctx.endShared();
  await ctx.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const GENERAL = { kind: 'room', room_id: 'general' };

t(
  'initialize names the server and advertises tools and subscribable resources; tools/list has the eleven tools with JSON schemas',
  async (ctx) => {
    const m = await ctx.shared();
    assert.is(m.client.getServerVersion()?.name, 'svc');
    const caps = m.client.getServerCapabilities();
    assert.ok(caps?.tools, 'tools capability');
    assert.is(caps?.resources?.subscribe, true);
    assert.match(m.client.getInstructions() ?? '', /agent beta/);
    const { tools } = await m.client.listTools();
    assert.equal(tools.map((x) => x.name).sort(), [
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
    const read = tools.find((x) => x.name === 'read_messages')!;
    assert.equal(Object.keys(read.inputSchema.properties ?? {}).sort(), ['before', 'dm_id', 'limit', 'room_id', 'thread_id']);
    const send = tools.find((x) => x.name === 'send_message')!;
    assert.equal(send.inputSchema.required, ['text']);
    assert.is((send.inputSchema.properties as Json).dm_with.type, 'array');
    const wait = tools.find((x) => x.name === 'wait_for_messages')!;
    assert.is((wait.inputSchema.properties as Json).timeout_s.maximum, 300);
    assert.equal((wait.inputSchema.properties as Json).scope.enum, ['mentions', 'all']);
  },
);

t('whoami names the network, the agent and the rooms it belongs to', async (ctx) => {
  const m = await ctx.shared();
  const r = await m.call('whoami');
  assert.not.ok(r.isError, r.text);
  assert.match(r.text, /^agent beta · svc:\/\/testnet\/agents\/beta/);
  assert.match(r.text, /network testnet \(Test Net/);
  assert.match(r.text, /member of: general/);
  const sc = r.structuredContent as Json;
  assert.is(sc.network.id, 'testnet');
  assert.is(sc.agent.id, 'beta');
  assert.is(sc.agent.registered, true, 'the attachment registered beta to its token');
  assert.equal(sc.rooms, ['general']);
});

t('send_message posts to a room, starts and continues a thread, and opens and answers a DM, as this agent', async (ctx) => {
  const m = await ctx.shared();
  const room = await m.call('send_message', { room_id: 'general', text: 'hello from beta @alpha' });
  assert.not.ok(room.isError, room.text);
  const sc = room.structuredContent as Json;
  assert.match(room.text, new RegExp(`^sent ${sc.message_id} to room general · reply there with send_message room_id="general"`));
  const hist = (await ctx.s.get('/v1/rooms/general/messages', ADMIN)).body.messages as Json[];
  const stored = hist.find((x) => x.id === sc.message_id);
  assert.is(stored.from.id, 'beta');
  assert.equal(stored.mentions, ['svc://testnet/agents/alpha']);

  const parent = await ctx.say(GENERAL, 'a topic');
  const started = await m.call('send_message', { room_id: 'general', thread_id: 'topic-1', parent_message_id: parent, text: 'on it' });
  assert.not.ok(started.isError, started.text);
  assert.is((started.structuredContent as Json).thread_created, true);
  const more = await m.call('send_message', { thread_id: 'topic-1', text: 'done' });
  assert.not.ok(more.isError, more.text);
  assert.equal((more.structuredContent as Json).conversation, { kind: 'thread', room_id: 'general', thread_id: 'topic-1' });
  assert.is((await ctx.s.get('/v1/threads/topic-1', ADMIN)).body.message_count, 2);

  const dm = await m.call('send_message', { dm_with: ['alpha'], text: 'a word in private' });
  assert.not.ok(dm.isError, dm.text);
  const conv = (dm.structuredContent as Json).conversation;
  assert.equal(conv.participant_ids, ['testnet:alpha', 'testnet:beta']);
  assert.match(dm.text, new RegExp(`DM ${conv.dm_id} with alpha .*send_message dm_id="${conv.dm_id}"`));
  const reply = await m.call('send_message', { dm_id: conv.dm_id, text: 'and another' });
  assert.not.ok(reply.isError, reply.text);
  assert.is((await ctx.s.get(`/v1/dms/${conv.dm_id}`, ADMIN)).body.message_count, 2);
});

t('read_messages shows who, when, what and the ids to reply with, oldest first, and pages with before', async (ctx) => {
  const m = await ctx.shared();
  const ids = [];
  for (let i = 1; i <= 3; i++) ids.push(await ctx.say(GENERAL, `numbered ${i}`));
  const r = await m.call('read_messages', { room_id: 'general', limit: 2 });
  assert.not.ok(r.isError, r.text);
  const sc = r.structuredContent as Json;
  assert.equal(
    sc.messages.map((x: Json) => x.id),
    ids.slice(1),
  );
  assert.match(r.text, /^room general · 2 messages, oldest first · reply with send_message room_id="general"/);
  assert.match(r.text, new RegExp(`- ${ids[1]} · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ · alpha:\\n  numbered 2`));
  assert.match(r.text, new RegExp(`older messages: read_messages with before="${ids[1]}"`));
  const older = await m.call('read_messages', { room_id: 'general', limit: 1, before: ids[1] });
  assert.equal(
    (older.structuredContent as Json).messages.map((x: Json) => x.id),
    [ids[0]],
  );
});

t('search_messages finds what was said where this agent can read, newest first, with the ids to reply with', async (ctx) => {
  const m = await ctx.shared();
  const old = await ctx.say(GENERAL, 'the zeppelin migration plan is drafted');
  const recent = await ctx.say(GENERAL, 'zeppelin migration moved to Friday');
  await ctx.say(GENERAL, 'unrelated words');
  const r = await m.call('search_messages', { query: 'zeppelin migration' });
  assert.not.ok(r.isError, r.text);
  const sc = r.structuredContent as Json;
  assert.equal(
    sc.messages.map((x: Json) => x.id),
    [recent, old],
  );
  assert.type(sc.messages[0].snippet, 'string');
  assert.match(r.text, /^2 matches for "zeppelin migration", newest first:/);
  assert.match(
    r.text,
    new RegExp(
      `room general · reply with send_message room_id="general"\\n- ${recent} · .* · alpha:\\n  zeppelin migration moved to Friday`,
    ),
  );
  const none = await m.call('search_messages', { query: 'zeppelin', room_id: 'lobby' });
  assert.equal((none.structuredContent as Json).messages, []);
  assert.match(none.text, /^No messages match "zeppelin"\./);
});

t('list_conversations counts unread messages per conversation until they are read', async (ctx) => {
  const m = await ctx.beta(ctx.stateDir());
  try {
    await ctx.say(GENERAL, 'unread one');
    await ctx.say(GENERAL, 'unread two');
    const dmId = (await m
      .call('send_message', { dm_with: ['alpha'], text: 'ping' })
      .then((r) => (r.structuredContent as Json).conversation.dm_id)) as string;
    await ctx.say({ kind: 'dm', dm_id: dmId }, 'pong');
    const before = await m.call('list_conversations');
    assert.not.ok(before.isError, before.text);
    const entries = (before.structuredContent as Json).conversations as Json[];
    const general = entries.find((e) => e.conversation.kind === 'room' && e.conversation.room_id === 'general');
    assert.is(general.unread, 2);
    assert.is(general.member, true);
    const dm = entries.find((e) => e.conversation.kind === 'dm' && e.conversation.dm_id === dmId);
    assert.is(dm.unread, 1, 'its own ping is not unread');
    assert.ok(
      entries.some((e) => e.conversation.kind === 'room' && e.conversation.room_id === 'lobby' && e.member === false),
      'a public room it can read but is not in',
    );
    assert.match(before.text, /^room general \(General, last [^)]+\): 2 unread · send_message room_id="general"$/m);
    await m.call('read_messages', { room_id: 'general' });
    const after = (await m.call('list_conversations')).structuredContent as Json;
    assert.is(after.conversations.find((e: Json) => e.conversation.room_id === 'general' && e.conversation.kind === 'room').unread, 0);
  } finally {
    await m.close();
  }
});

t('wait_for_messages returns a mention sent while it waits, and not a message that does not mention it', async (ctx) => {
  const m = await ctx.beta(ctx.stateDir());
  try {
    const started = Date.now();
    const waiting = m.call('wait_for_messages', { timeout_s: 30 }, 40_000);
    await new Promise((r) => setTimeout(r, 300));
    await ctx.say(GENERAL, 'just chatter');
    const id = await ctx.say(GENERAL, 'hey @beta, a question');
    const r = await waiting;
    assert.not.ok(r.isError, r.text);
    assert.ok(Date.now() - started < 15_000, 'returned on arrival, not at the timeout');
    const sc = r.structuredContent as Json;
    assert.equal(
      sc.messages.map((x: Json) => x.id),
      [id],
    );
    assert.is(sc.messages[0].for_me, 'mention');
    assert.is(sc.timed_out, false);
    assert.match(r.text, /^1 new message \(mentions of beta and DMs to it\):/);
    assert.match(r.text, /room general · reply with send_message room_id="general"/);
    assert.match(r.text, new RegExp(`- ${id} · .* · alpha · mentions you:\\n  hey @beta, a question`));
  } finally {
    await m.close();
  }
});

t('wait_for_messages returns nothing twice and skips nothing across a restart of svc mcp', async (ctx) => {
  const state = ctx.stateDir();
  let m = await ctx.beta(state);
  const first = await ctx.say(GENERAL, '@beta first');
  const got1 = await m.call('wait_for_messages', { timeout_s: 10 });
  assert.equal(
    (got1.structuredContent as Json).messages.map((x: Json) => x.id),
    [first],
  );
  await m.close();

  // While svc mcp is down: a mention and a DM arrive.
  const second = await ctx.say(GENERAL, '@beta second, while you were away');
  const dm = await ctx.say({ kind: 'dm', participant_ids: ['beta'] }, 'and a DM');

  m = await ctx.beta(state);
  try {
    const got2 = await m.call('wait_for_messages', { timeout_s: 10 });
    assert.equal(
      (got2.structuredContent as Json).messages.map((x: Json) => x.id),
      [second, dm],
      'what arrived while down, and not the first again',
    );
    const got3 = await m.call('wait_for_messages', { timeout_s: 1 });
    assert.equal((got3.structuredContent as Json).messages, []);
    assert.is((got3.structuredContent as Json).timed_out, true);
    assert.match(got3.text, /^Nothing new \(mentions of beta and DMs to it\) in 1 s/);
  } finally {
    await m.close();
  }
  const m3 = await ctx.beta(state);
  try {
    const got4 = await m3.call('wait_for_messages', { timeout_s: 1 });
    assert.equal((got4.structuredContent as Json).messages, [], 'a second restart returns nothing either');
  } finally {
    await m3.close();
  }
});

t('wait_for_messages with scope all returns every message it can read, except its own', async (ctx) => {
  const m = await ctx.beta(ctx.stateDir());
  try {
    const a = await ctx.say(GENERAL, 'plain chatter');
    await m.call('send_message', { room_id: 'general', text: 'my own words' });
    const b = await ctx.say(GENERAL, 'more chatter');
    // Under load the two may reach the attachment apart: collect calls until both came (or 15 s).
    const got: string[] = [];
    for (const until = Date.now() + 15_000; got.length < 2 && Date.now() < until; ) {
      const r = await m.call('wait_for_messages', { timeout_s: 5, scope: 'all' });
      got.push(...(r.structuredContent as Json).messages.map((x: Json) => x.id));
    }
    assert.equal(got, [a, b]);
  } finally {
    await m.close();
  }
});

t('the inbox resource sends resources/updated when a mention or DM arrives, and reads the waiting messages', async (ctx) => {
  const m = await ctx.beta(ctx.stateDir());
  try {
    const { resources } = await m.client.listResources();
    const inbox = resources.find((x) => x.name === 'inbox')!;
    assert.is(inbox.uri, 'svc://testnet/agents/beta/inbox');
    const updates: string[] = [];
    let notify: (() => void) | undefined;
    m.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      notify?.();
    });
    await m.client.subscribeResource({ uri: inbox.uri });
    const arrived = new Promise<void>((resolve) => (notify = resolve));
    await ctx.say(GENERAL, 'no mention, no notification');
    const dm = await ctx.say({ kind: 'dm', participant_ids: ['beta'] }, 'psst, beta');
    await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error('no resources/updated in 10 s')), 10_000))]);
    assert.equal(updates, [inbox.uri]);
    const read = await m.client.readResource({ uri: inbox.uri });
    const text = read.contents.find((c) => c.mimeType === 'text/plain') as { text: string };
    assert.match(text.text, /1 waiting/);
    assert.match(text.text, new RegExp(`- ${dm} · .* · alpha:\\n  psst, beta`));
    const json = JSON.parse((read.contents.find((c) => c.mimeType === 'application/json') as { text: string }).text);
    assert.equal(
      json.messages.map((x: Json) => x.id),
      [dm],
    );
  } finally {
    await m.close();
  }
});

t("a room it cannot write gives a tool error with the server's message, and the server keeps serving", async (ctx) => {
  const m = await ctx.beta(ctx.stateDir());
  try {
    const r = await m.call('send_message', { room_id: 'lobby', text: 'may I?' });
    assert.is(r.isError, true);
    assert.match(r.text, /^403 forbidden: .*lobby/);
    const bad = await m.call('read_messages', { room_id: 'nowhere' });
    assert.is(bad.isError, true);
    assert.match(bad.text, /^404 not_found: room nowhere/);
    const noPlace = await m.call('send_message', { text: 'where?' });
    assert.is(noPlace.isError, true);
    assert.match(noPlace.text, /say where/);
    const invalid = await m.call('wait_for_messages', { timeout_s: 9999 });
    assert.is(invalid.isError, true);
    assert.match(invalid.text, /timeout_s/);
    assert.not.ok((await m.call('whoami')).isError, 'still serving');
  } finally {
    await m.close();
  }
});

t('a token that may not attach still reads, and wait_for_messages is a tool error that says why', async (ctx) => {
  const m = await startMcp(['--url', ctx.s.url, '--agent', 'beta', '--state-dir', ctx.stateDir()], { SVC_TOKEN: TOKENS.observer.value });
  try {
    await m.waitFor(/live delivery stopped/);
    const read = await m.call('read_messages', { room_id: 'general', limit: 1 });
    assert.not.ok(read.isError, read.text);
    const r = await m.call('wait_for_messages', { timeout_s: 1 });
    assert.is(r.isError, true);
    assert.match(r.text, /^live delivery stopped: .*403/);
  } finally {
    await m.close();
  }
});

t('started before the network answers, tool calls are errors saying so, and it serves once the server is up', async (ctx) => {
  const port = await freePort();
  const m = await startMcp(['--url', `http://127.0.0.1:${port}`, '--agent', 'beta', '--state-dir', ctx.stateDir()], {
    SVC_TOKEN: BETA.value,
  });
  let late: AppServer | undefined;
  try {
    const r = await m.call('whoami');
    assert.is(r.isError, true);
    assert.match(r.text, /^no svc server is running at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/);
    assert.equal((await m.client.listResources()).resources, []);
    late = await startApp({ config: { ...CONFIG, store: { backend: 'memory' }, server: { listen_addr: `127.0.0.1:${port}` } } });
    await m.waitFor(/attached as beta/);
    const ok = await m.call('whoami');
    assert.not.ok(ok.isError, ok.text);
    assert.equal(
      (await m.client.listResources()).resources.map((x) => x.uri),
      ['svc://testnet/agents/beta/inbox'],
    );
  } finally {
    await m.close();
    await late?.dispose();
  }
});

t('an agent token names the agent without --agent', async (ctx) => {
  const reg = await ctx.s.post('/v1/agents/register', { requested_agent_id: 'gamma', name: 'Gamma' });
  assert.is(reg.status, 200, reg.text);
  const m = await startMcp(['--url', ctx.s.url, '--state-dir', ctx.stateDir()], { SVC_TOKEN: reg.body.agent_token });
  try {
    const r = await m.call('whoami');
    assert.not.ok(r.isError, r.text);
    assert.match(r.text, /^agent gamma \(Gamma\)/);
  } finally {
    await m.close();
  }
});

t('a static token without --agent is a usage error naming what to pass; --print-config prints a snippet', async (ctx) => {
  const r = await cli(['mcp', '--url', ctx.s.url], { env: { SVC_TOKEN: BETA.value } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^svc mcp: say which agent to act as: pass --agent ID/m);
  assert.is(r.stdout, '');
  const p = await cli(['mcp', '--print-config', 'cursor', '--url', ctx.s.url, '--agent', 'beta'], { env: { SVC_TOKEN: BETA.value } });
  assert.is(p.code, 0, p.stderr);
  const cfg = JSON.parse(p.stdout);
  assert.equal(cfg.mcpServers.svc.args.slice(-5), ['mcp', '--url', ctx.s.url, '--agent', 'beta']);
  assert.equal(cfg.mcpServers.svc.env, { SVC_TOKEN: BETA.value });
  assert.match(p.stderr, /\.cursor\/mcp\.json/);
  assert.match(p.stderr, /holds the token/);
  const bad = await cli(['mcp', '--print-config', 'vim']);
  assert.is(bad.code, 2);
});

t.run();
