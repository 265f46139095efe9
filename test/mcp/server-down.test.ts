// `svc mcp` started while its server is down (an MCP client is often started before `svc serve`):
// it serves anyway, lists its tools, answers each tool call with an error that says what is wrong
// and how to start the server, and once the server answers the same session works.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, freePort } from '../helpers/cli.js';
import { startMcp, type McpSession } from '../helpers/mcp.js';
import { eventually, startServer, type TestServer } from '../helpers/server.js';

interface Ctx {
  root: string;
  dir: string;
  home: string;
  s: TestServer;
  m?: McpSession;
  /** alpha's agent token, given to a second svc mcp in SVC_TOKEN rather than found kept. */
  token: string;
  given?: McpSession;
}

const t = suite<Ctx>('svc mcp started while the server is down');

t.before(async (ctx) => {
  ctx.root = mkdtempSync(path.join(tmpdir(), 'svc-mcp-down-'));
  ctx.dir = path.join(ctx.root, 'net');
  ctx.home = path.join(ctx.root, 'home');
  mkdirSync(ctx.dir);
  mkdirSync(ctx.home);
  const init = await cli(['init', '--yes', '--network-id', 'home'], { cwd: ctx.dir, env: { HOME: ctx.home } });
  assert.is(init.code, 0, init.stderr);
  // A fixed port (the server comes back on it) and the default sqlite store (alpha outlives the stop).
  const file = path.join(ctx.dir, 'svc.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('listen_addr: 127.0.0.1:8787', `listen_addr: 127.0.0.1:${await freePort()}`), {
    mode: 0o600,
  });
  ctx.s = await startServer({ dir: ctx.dir, keepConfig: true });
  const reg = await cli(['agents', 'register', '--id', 'alpha'], { cwd: ctx.dir, env: { HOME: ctx.home } });
  assert.is(reg.code, 0, reg.stderr);
  const tok = await cli(['agents', 'token', 'alpha'], { cwd: ctx.dir, env: { HOME: ctx.home } });
  assert.is(tok.code, 0, tok.stderr);
  ctx.token = tok.stdout.trim();
  assert.match(ctx.token, /^agt_v1_/);
  await ctx.s.stop();
});
t.after(async (ctx) => {
  await ctx.m?.close();
  await ctx.given?.close();
  await ctx.s?.dispose();
  if (ctx.root) rmSync(ctx.root, { recursive: true, force: true });
});

t('it starts, lists its tools and answers a call with a clear error instead of closing', async (ctx) => {
  ctx.m = await startMcp(['--config', path.join(ctx.dir, 'svc.yaml'), '--agent', 'alpha'], { HOME: ctx.home });
  await ctx.m.waitFor(/serving anyway/);
  const tools = (await ctx.m.client.listTools()).tools.map((x) => x.name);
  assert.ok(tools.includes('whoami') && tools.includes('send_message'), tools.join());
  const r = await ctx.m.call('whoami');
  assert.ok(r.isError, r.text);
  assert.match(r.text, /no svc server is running at http:\/\/127\.0\.0\.1:\d+ .*start it with `svc serve/);
  const sent = await ctx.m.call('send_message', { room_id: 'general', text: 'hello' });
  assert.ok(sent.isError, sent.text);
  assert.match(sent.text, /no svc server is running/);
});

t('once the server answers, the same session acts as the agent: whoami, send, attached', async (ctx) => {
  await ctx.s.restart();
  const who = await eventually(
    async () => {
      const r = await ctx.m!.call('whoami');
      return r.isError ? undefined : r;
    },
    20_000,
    'whoami answered',
  );
  assert.match(who!.text, /^agent alpha /);
  await ctx.m!.waitFor(/attached as alpha on home/, 20_000);
  const sent = await ctx.m!.call('send_message', { room_id: 'general', text: 'back' });
  assert.not.ok(sent.isError, sent.text);
  assert.match(sent.text, /^sent msg_/);
});

// With --agent, a token given is checked against it by asking the server whose it is: that check
// waits for the server too, instead of ending svc mcp before the client can ask anything.
t('with the agent token given in SVC_TOKEN and --agent: the same, served while down, then acting as it', async (ctx) => {
  // The first svc mcp is done: left running, it would race this one for alpha's one attachment.
  await ctx.m?.close();
  ctx.m = undefined;
  await ctx.s.stop();
  ctx.given = await startMcp(['--config', path.join(ctx.dir, 'svc.yaml'), '--agent', 'alpha'], {
    HOME: ctx.home,
    SVC_TOKEN: ctx.token,
  });
  await ctx.given.waitFor(/serving anyway/);
  const r = await ctx.given.call('whoami');
  assert.ok(r.isError, r.text);
  assert.match(r.text, /no svc server is running at http:\/\/127\.0\.0\.1:\d+ .*start it with `svc serve/);
  await ctx.s.restart();
  const who = await eventually(
    async () => {
      const w = await ctx.given!.call('whoami');
      return w.isError ? undefined : w;
    },
    20_000,
    'whoami answered',
  );
  assert.match(who!.text, /^agent alpha /);
  await ctx.given.waitFor(/attached as alpha on home/, 20_000);
});

t.run();
