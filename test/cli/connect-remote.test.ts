// `svc connect claude|codex|cursor --remote` and `svc mcp --print-config CLIENT --remote` as
// processes against a real server, with a temp HOME: each client's HTTP entry (URL of /v1/mcp and
// the agent's kept token in a header, or for Codex in an environment variable), other entries
// kept, whoami proven over HTTP by the command and again here with the SDK client from what was
// written.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, freePort, type CliResult, MEMORY_STORE } from '../helpers/cli.js';
import { connectMcpHttp } from '../helpers/mcp-http.js';
import { startServer, type Json, type TestServer } from '../helpers/server.js';

interface Ctx {
  root: string;
  dir: string;
  home: string;
  s: TestServer;
  keptDir: string;
  project: () => string;
  run: (args: string[], cwd: string, bin?: string) => Promise<CliResult>;
}

const t = suite<Ctx>('svc connect --remote');

t.before(async (ctx) => {
  ctx.root = mkdtempSync(path.join(tmpdir(), 'svc-connect-remote-'));
  ctx.dir = path.join(ctx.root, 'net');
  ctx.home = path.join(ctx.root, 'home');
  mkdirSync(ctx.dir);
  mkdirSync(ctx.home);
  const init = await cli(['init', '--yes', '--network-id', 'home'], { cwd: ctx.dir, env: { HOME: ctx.home } });
  assert.is(init.code, 0, init.stderr);
  const port = await freePort();
  const file = path.join(ctx.dir, 'svc.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8')
      .replace('listen_addr: 127.0.0.1:8787', `listen_addr: 127.0.0.1:${port}`)
      // Only the target of the commands: the memory store starts on half the CPU (helpers/cli.ts).
      .replace(/^ {2}backend: sqlite\b/m, `  backend: ${MEMORY_STORE.backend}`),
    { mode: 0o600 },
  );
  ctx.s = await startServer({ dir: ctx.dir, keepConfig: true });
  ctx.keptDir = path.join(ctx.dir, '.svc', 'agents', `home@127.0.0.1-${port}`);
  let n = 0;
  ctx.project = () => {
    const p = path.join(ctx.root, `project-${++n}`);
    mkdirSync(p);
    return p;
  };
  const basePath = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
  ctx.run = (args, cwd, bin) =>
    cli(args, { cwd, env: { HOME: ctx.home, CODEX_HOME: undefined, PATH: bin ? `${bin}${path.delimiter}${basePath}` : basePath } });
});
t.after(async (ctx) => {
  await ctx.s?.dispose();
  rmSync(ctx.root, { recursive: true, force: true });
});

const kept = (dir: string, agent: string) => readFileSync(path.join(dir, `${agent}.token`), 'utf8').trim();

/** whoami through the SDK client with exactly the URL and headers an entry holds. */
async function whoamiOf(url: string, headers: Record<string, string>): Promise<string> {
  const token = /^Bearer (\S+)$/.exec(headers.Authorization ?? '')?.[1];
  assert.ok(token, 'the entry carries a bearer token');
  const base = url.replace(/\/v1\/mcp$/, '');
  const m = await connectMcpHttp(base, token);
  try {
    return ((await m.call('whoami')).structuredContent as Json).agent.id;
  } finally {
    await m.close();
  }
}

t('claude without claude on PATH: .mcp.json gets the http entry with the kept token, other servers kept, whoami proven', async (ctx) => {
  const p = ctx.project();
  writeFileSync(path.join(p, '.mcp.json'), JSON.stringify({ mcpServers: { other: { command: 'other-server', args: [] } } }));
  const r = await ctx.run(['connect', 'claude', '--agent', 'alpha', '--config', ctx.s.configFile, '--remote', '--yes'], p);
  assert.is(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^connected claude as agent alpha of network home over HTTP \(http:\/\/127\.0\.0\.1:\d+\/v1\/mcp; whoami answered alpha\)\n$/,
  );
  const doc = JSON.parse(readFileSync(path.join(p, '.mcp.json'), 'utf8'));
  assert.equal(doc.mcpServers.other, { command: 'other-server', args: [] });
  const e = doc.mcpServers.svc;
  assert.is(e.type, 'http');
  assert.is(e.url, `${ctx.s.url}/v1/mcp`);
  assert.equal(e.headers, { Authorization: `Bearer ${kept(ctx.keptDir, 'alpha')}` });
  assert.is(await whoamiOf(e.url, e.headers), 'alpha');
});

t('claude with claude on PATH: runs claude mcp add --transport http with the Authorization header', async (ctx) => {
  const p = ctx.project();
  const bin = path.join(ctx.root, 'bin-claude');
  mkdirSync(bin);
  const log = path.join(ctx.root, 'claude-http-args.log');
  writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\necho "$@" >> '${log}'\n`);
  chmodSync(path.join(bin, 'claude'), 0o755);
  const r = await ctx.run(['connect', 'claude', '--agent', 'alpha', '--config', ctx.s.configFile, '--remote', '--yes'], p, bin);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /using the token of alpha kept in/);
  assert.is(
    readFileSync(log, 'utf8').trim(),
    `mcp add --transport http --scope project svc ${ctx.s.url}/v1/mcp --header Authorization: Bearer ${kept(ctx.keptDir, 'alpha')}`,
  );
});

t('codex: [mcp_servers.NAME] has the url and bearer_token_env_var, and no token in the file', async (ctx) => {
  const file = path.join(ctx.home, '.codex', 'config.toml');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n');
  const r = await ctx.run(['connect', 'codex', '--agent', 'codexer', '--remote', '--yes'], ctx.dir);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /connected codex as agent codexer .*over HTTP .*whoami answered codexer/);
  assert.match(r.stderr, /export SVC_TOKEN_CODEXER="\$\(svc agents token codexer\)"/);
  const after = readFileSync(file, 'utf8');
  assert.match(after, /^model = "o3"\n\n\[mcp_servers\.other\]\ncommand = "other"\n/);
  assert.match(
    after,
    new RegExp(
      `\\[mcp_servers\\.svc\\]\\nurl = "${ctx.s.url}/v1/mcp"\\nbearer_token_env_var = "SVC_TOKEN_CODEXER"\\ntool_timeout_sec = \\d+\\n`,
    ),
  );
  assert.not.match(after, /agt_v1_|command = ".*svc/);
  assert.is(await whoamiOf(`${ctx.s.url}/v1/mcp`, { Authorization: `Bearer ${kept(ctx.keptDir, 'codexer')}` }), 'codexer');
});

t('cursor: .cursor/mcp.json gets url and headers; the default agent is the client name', async (ctx) => {
  const p = ctx.project();
  const r = await ctx.run(['connect', 'cursor', '--config', ctx.s.configFile, '--remote', '--yes'], p);
  assert.is(r.code, 0, r.stderr);
  const e = JSON.parse(readFileSync(path.join(p, '.cursor', 'mcp.json'), 'utf8')).mcpServers.svc;
  assert.equal(Object.keys(e).sort(), ['headers', 'url']);
  assert.is(e.url, `${ctx.s.url}/v1/mcp`);
  assert.is(await whoamiOf(e.url, e.headers), 'cursor');
});

t('--print shows the http entry without the token and writes nothing', async (ctx) => {
  const p = ctx.project();
  const r = await ctx.run(['connect', 'cursor', '--agent', 'alpha', '--config', ctx.s.configFile, '--remote', '--print'], p);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /"Authorization": "Bearer <the token of the agent>"/);
  assert.not.match(r.stdout, /agt_v1_/);
  assert.not.ok(existsSync(path.join(p, '.cursor')));
});

t('svc mcp --print-config CLIENT --remote prints the http form with the kept token; none kept is a usage error', async (ctx) => {
  const claude = await ctx.run(['mcp', '--print-config', 'claude', '--remote', '--agent', 'alpha', '--config', ctx.s.configFile], ctx.dir);
  assert.is(claude.code, 0, claude.stderr);
  const e = JSON.parse(claude.stdout).mcpServers.svc;
  assert.equal(e, { type: 'http', url: `${ctx.s.url}/v1/mcp`, headers: { Authorization: `Bearer ${kept(ctx.keptDir, 'alpha')}` } });
  assert.match(claude.stderr, /claude mcp add --transport http --scope project svc/);
  const codex = await ctx.run(['mcp', '--print-config', 'codex', '--remote', '--agent', 'alpha', '--config', ctx.s.configFile], ctx.dir);
  assert.is(codex.code, 0, codex.stderr);
  assert.match(
    codex.stdout,
    /^\[mcp_servers\.svc\]\nurl = "http:\/\/127\.0\.0\.1:\d+\/v1\/mcp"\nbearer_token_env_var = "SVC_TOKEN_ALPHA"\n/,
  );
  const none = await ctx.run(['mcp', '--print-config', 'cursor', '--remote', '--agent', 'nobody', '--config', ctx.s.configFile], ctx.dir);
  assert.is.not(none.code, 0);
  assert.match(none.stderr, /nobody/);
});

t.run();
