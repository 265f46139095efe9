// `svc mcp` (stdio) for MCP 2026-07-28 with clients nobody here wrote: the 2.x SDK client pinned to
// the revision (the connection opens with server/discover, no initialize) calls tools and is told
// of a new mention through subscriptions/listen on the inbox; the MCP Inspector CLI (a 2025
// client: it opens with initialize) lists the tools and calls one. The 1.x client over stdio is
// test/mcp/mcp.test.ts and channel.test.ts, unchanged.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cleanEnv } from '../helpers/cli.js';
import { SVC_BIN, TOKENS, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ALPHA = TOKENS.alphaOnly.value;
const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };
const INSPECTOR = new URL('../../node_modules/.bin/mcp-inspector-cli', import.meta.url).pathname;
/** The Inspector CLI finds its package.json as `../package.json` of its working directory: run from test/. */
const TEST_DIR = new URL('..', import.meta.url).pathname;

interface Ctx {
  s: AppServer;
  dir: string;
}

const t = suite<Ctx>('svc mcp over stdio speaks MCP 2026-07-28 beside the 2025 handshake');

t.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      auth: {
        tokens: [
          ...Object.values(TOKENS).map((x) => ({ ...x, scopes: [...x.scopes], ...('agents' in x ? { agents: [...x.agents] } : {}) })),
          BETA,
        ],
      },
      rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta'] }],
    },
  });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-mcp26-'));
});
t.after(async (ctx) => {
  await ctx.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** The svc mcp command line and environment, as a client's config would name them. */
function svcMcp(ctx: Ctx, state: string): { command: string; args: string[]; env: Record<string, string> } {
  const env = cleanEnv({ SVC_TOKEN: BETA.value });
  return {
    command: process.execPath,
    args: [SVC_BIN, 'mcp', '--url', ctx.s.url, '--agent', 'beta', '--state-dir', path.join(ctx.dir, state)],
    env: Object.fromEntries(Object.entries(env).filter((kv): kv is [string, string] => kv[1] !== undefined)),
  };
}

t('the 2.x client opens with server/discover, calls tools and hears of a new mention through subscriptions/listen', async (ctx) => {
  const transport = new StdioClientTransport({ ...svcMcp(ctx, 'modern'), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const c = new Client({ name: 'svc-test-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await c.connect(transport);
  try {
    assert.is(c.getProtocolEra(), 'modern');
    assert.is(c.getServerVersion()?.title, 'svc agent beta');
    const tools = (await c.listTools()).tools;
    assert.is(tools.length, 11);
    assert.ok(tools.every((x) => x.outputSchema && x.icons?.length));
    const who = await c.callTool({ name: 'whoami', arguments: {} });
    assert.is((who.structuredContent as Json).agent.id, 'beta', JSON.stringify(who));
    const inbox = (await c.listResources()).resources.find((r) => r.name === 'inbox')!.uri;
    const updated = new Promise<string>((resolve) => {
      c.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri));
    });
    const sub = await c.listen({ resourceSubscriptions: [inbox] });
    const r = await ctx.s.req('POST', '/v1/messages', {
      token: ALPHA,
      body: {
        target: { kind: 'room', room_id: 'general' },
        from: { type: 'agent', id: 'alpha' },
        parts: [{ kind: 'text', text: '@beta over stdio' }],
      },
    });
    assert.is(r.status, 200, r.text);
    assert.is(await updated, inbox);
    await sub.close();
    const waited = await c.callTool({ name: 'wait_for_messages', arguments: { timeout_s: 5 } });
    assert.is((waited.structuredContent as Json).messages[0]?.text, '@beta over stdio', JSON.stringify(waited));
  } catch (err) {
    throw new Error(`${(err as Error).message}\nsvc mcp stderr:\n${stderr}`);
  } finally {
    await c.close();
  }
});

function inspector(args: string[]): Promise<Json> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [INSPECTOR, '--cli', ...args], { timeout: 60_000, cwd: TEST_DIR }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Json),
    );
  });
}

t('the Inspector CLI lists the tools of svc mcp and calls whoami over stdio', async (ctx) => {
  const m = svcMcp(ctx, 'inspector');
  // The Inspector refuses `-e KEY=` (an empty value), which `npm test` sets (npm_config_noproxy=, ...).
  const env = Object.entries(m.env)
    .filter(([, v]) => v !== '')
    .flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const list = await inspector([...env, '--method', 'tools/list', '--', m.command, ...m.args]);
  assert.is(list.tools.length, 11);
  const who = await inspector([...env, '--method', 'tools/call', '--tool-name', 'whoami', '--', m.command, ...m.args]);
  assert.is(who.structuredContent.agent.id, 'beta');
});

t.run();
