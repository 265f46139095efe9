// `svc connect claude|codex|cursor` as a process against a real server, with a temp HOME and a
// temp project: the agent is registered (or its kept token reused), the client's config is merged
// (other entries kept, no token written), whoami is proven through the written entry, --print
// writes nothing, and without a TTY it asks for --yes. Then `--remote` (and `svc mcp --print-config
// CLIENT --remote`) against the same server: each client's HTTP entry (URL of /v1/mcp and the
// agent's kept token in a header, or for Codex in an environment variable), other entries kept,
// whoami proven over HTTP by the command and again here with the SDK client from what was written.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { cli, freePort, type CliResult, MEMORY_STORE } from '../helpers/cli.js';
import { startMcp } from '../helpers/mcp.js';
import { connectMcpHttp } from '../helpers/mcp-http.js';
import { startServer, SVC_BIN, type Json, type TestServer } from '../helpers/server.js';

interface Ctx {
  root: string;
  dir: string;
  home: string;
  s: TestServer;
  keptDir: string;
  /** A fresh empty project folder. */
  project: () => string;
  /** `svc ...` in `cwd` with HOME and a PATH without any claude (unless `bin` is put first). */
  run: (args: string[], cwd: string, bin?: string) => Promise<CliResult>;
}

/**
 * One server and HOME for both suites (a config folder of `svc init`, on the memory store: only the
 * target of the commands, helpers/cli.ts); the second suite's `after` removes them.
 */
async function setup(): Promise<Ctx> {
  const ctx = {} as Ctx;
  ctx.root = mkdtempSync(path.join(tmpdir(), 'svc-connect-'));
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
  // Kept by the network's identity: its id and the uid its store holds.
  ctx.keptDir = path.join(ctx.dir, '.svc', 'agents', `home@${(await ctx.s.get('/v1/network')).body.uid}`);
  let n = 0;
  ctx.project = () => {
    const p = path.join(ctx.root, `project-${++n}`);
    mkdirSync(p);
    return p;
  };
  const basePath = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
  ctx.run = (args, cwd, bin) =>
    cli(args, { cwd, env: { HOME: ctx.home, CODEX_HOME: undefined, PATH: bin ? `${bin}${path.delimiter}${basePath}` : basePath } });
  return ctx;
}
let shared: Promise<Ctx> | undefined;
const useShared = async (ctx: Ctx): Promise<void> => {
  Object.assign(ctx, await (shared ??= setup()));
};

const t = suite<Ctx>('svc connect');
t.before(useShared);

/** The args an entry runs svc mcp with, after the node binary and the running svc script (SVC_BIN here). */
const mcpArgs = (args: string[]) => args.slice(args.indexOf('mcp'));

t(
  'claude without claude on PATH: merges .mcp.json (other servers kept, no token), registers the agent (--register) and proves whoami',
  async ({ run, s, keptDir, project }) => {
    const p = project();
    writeFileSync(
      path.join(p, '.mcp.json'),
      JSON.stringify({ mcpServers: { other: { command: 'other-server', args: ['--x'] } }, extra: true }, null, 2),
    );
    const r = await run(['connect', 'claude', '--agent', 'alpha', '--config', s.configFile, '--register', '--yes'], p);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^connected claude as agent alpha of network home \(server svc; whoami answered alpha\)\n$/);
    assert.match(r.stderr, /registered agent alpha; its token is kept in \S+alpha\.token/);
    const doc = JSON.parse(readFileSync(path.join(p, '.mcp.json'), 'utf8'));
    assert.equal(doc.mcpServers.other, { command: 'other-server', args: ['--x'] });
    assert.is(doc.extra, true);
    assert.equal(mcpArgs(doc.mcpServers.svc.args), ['mcp', '--config', s.configFile, '--agent', 'alpha']);
    assert.is(doc.mcpServers.svc.env, undefined);
    assert.not.match(readFileSync(path.join(p, '.mcp.json'), 'utf8'), /agt_v1_/);
    assert.match(readFileSync(path.join(keptDir, 'alpha.token'), 'utf8'), /^agt_v1_/);
  },
);

t(
  'claude with claude on PATH: runs claude mcp add (after removing an entry of the same name) and proves whoami with the kept token',
  async ({ run, s, root, project }) => {
    const p = project();
    writeFileSync(path.join(p, '.mcp.json'), JSON.stringify({ mcpServers: { svc: { command: 'old' } } }));
    const bin = path.join(root, 'fakebin');
    mkdirSync(bin, { recursive: true });
    const log = path.join(root, 'claude-args.log');
    writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\necho "$@" >> '${log}'\n`);
    chmodSync(path.join(bin, 'claude'), 0o755);
    const r = await run(['connect', 'claude', '--agent', 'alpha', '--config', s.configFile, '--yes'], p, bin);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /using the token of alpha kept in/);
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    assert.is(calls.length, 2, calls.join('\n'));
    assert.is(calls[0], 'mcp remove --scope project svc');
    assert.match(
      calls[1]!,
      new RegExp(
        `^mcp add --scope project svc -- \\S+ ${SVC_BIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} mcp --config ${s.configFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --agent alpha$`,
      ),
    );
    assert.match(r.stdout, /whoami answered alpha/);
  },
);

t(
  'codex from the config folder: replaces only [mcp_servers.NAME] in ~/.codex/config.toml, every other line kept, no token in the file',
  async ({ run, dir, home }) => {
    const file = path.join(home, '.codex', 'config.toml');
    mkdirSync(path.dirname(file), { recursive: true });
    const before =
      'model = "o3"  # mine\n\n[mcp_servers.other]\ncommand = "other"\nargs = ["a"]\n\n[mcp_servers.codey]\ncommand = "stale"\n\n[mcp_servers.codey.env]\nX = "1"\n\n[profiles.fast]\nmodel = "mini"\n';
    writeFileSync(file, before);
    const r = await run(['connect', 'codex', '--name', 'codey', '--agent', 'codexer', '--register', '--yes'], dir);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /connected codex as agent codexer .*whoami answered codexer/);
    const after = readFileSync(file, 'utf8');
    assert.match(after, /^model = "o3" {2}# mine\n\n\[mcp_servers\.other\]\ncommand = "other"\nargs = \["a"\]\n/);
    assert.match(after, /\[profiles\.fast\]\nmodel = "mini"/);
    assert.not.match(after, /stale|X = "1"|\[mcp_servers\.codey\.env\]/);
    assert.is(after.match(/\[mcp_servers\.codey\]/g)?.length, 1);
    assert.match(
      after,
      new RegExp(
        `args = \\[.*"mcp", "--config", "${path.join(dir, 'svc.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}", "--agent", "codexer"\\]`,
      ),
    );
    assert.not.match(after, /agt_v1_|SVC_TOKEN/);
    // Run again: still one table (the kept token is reused).
    const again = await run(['connect', 'codex', '--name', 'codey', '--agent', 'codexer', '--yes'], dir);
    assert.is(again.code, 0, again.stderr);
    assert.is(readFileSync(file, 'utf8').match(/\[mcp_servers\.codey\]/g)?.length, 1);
  },
);

t(
  'cursor: merges .cursor/mcp.json, and the written entry serves as the agent (default agent id: the client name)',
  async ({ run, s, home, project }) => {
    const p = project();
    mkdirSync(path.join(p, '.cursor'));
    writeFileSync(path.join(p, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { keep: { url: 'http://example.invalid/mcp' } } }));
    const r = await run(['connect', 'cursor', '--config', s.configFile, '--register', '--yes'], p);
    assert.is(r.code, 0, r.stderr);
    const doc = JSON.parse(readFileSync(path.join(p, '.cursor', 'mcp.json'), 'utf8'));
    assert.equal(doc.mcpServers.keep, { url: 'http://example.invalid/mcp' });
    assert.equal(mcpArgs(doc.mcpServers.svc.args), ['mcp', '--config', s.configFile, '--agent', 'cursor']);
    // What Cursor would start, started here: it acts as cursor.
    const m = await startMcp(mcpArgs(doc.mcpServers.svc.args).slice(1), { HOME: home });
    try {
      await m.waitFor(/attached as cursor on home/);
      assert.match((await m.call('whoami')).text, /^agent cursor /);
    } finally {
      await m.close();
    }
  },
);

t('--print only prints: no file written, no agent registered', async ({ run, s, keptDir, project }) => {
  const p = project();
  const r = await run(['connect', 'cursor', '--agent', 'printonly', '--config', s.configFile, '--print'], p);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /\.cursor\/mcp\.json: mcpServers\.svc =/);
  assert.match(r.stdout, /"--agent",\n\s+"printonly"/);
  assert.not.ok(existsSync(path.join(p, '.cursor')));
  assert.not.ok(existsSync(path.join(keptDir, 'printonly.token')));
  assert.is((await s.get('/v1/agents/printonly')).status, 404);
});

t('without a TTY and without --yes it refuses politely and writes nothing', async ({ run, s, keptDir, project }) => {
  const p = project();
  const r = await run(['connect', 'claude', '--agent', 'notty', '--config', s.configFile, '--register'], p);
  assert.is(r.code, 2);
  assert.match(r.stderr, /svc connect: not a TTY; pass --yes/);
  assert.not.ok(existsSync(path.join(p, '.mcp.json')));
  assert.not.ok(existsSync(path.join(keptDir, 'notty.token')));
});

t(
  'an agent id claimed by another credential, with no kept token, is refused with the fix and nothing is written',
  async ({ run, s, project }) => {
    const claim = await s.post('/v1/agents/register', { requested_agent_id: 'taken' });
    assert.is(claim.status, 200, claim.text);
    const p = project();
    const r = await run(['connect', 'cursor', '--agent', 'taken', '--config', s.configFile, '--yes'], p);
    assert.is(r.code, 1);
    assert.match(
      r.stderr,
      /agent taken cannot be claimed here .*pick another --agent, or bring its token: SVC_TOKEN=agt_v1_\.\.\. svc agents register --id taken/,
    );
    assert.not.ok(existsSync(path.join(p, '.cursor')));
  },
);

t(
  'an id the network does not have is refused with the closest registered one, and nothing is registered or written',
  async ({ run, s, keptDir, project }) => {
    const p = project();
    // alpha was registered by the first test; alhpa is its typo.
    const r = await run(['connect', 'claude', '--agent', 'alhpa', '--config', s.configFile, '--yes'], p);
    assert.is(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /svc connect: --agent alhpa: no agent alhpa is registered on network home \(did you mean alpha\?\); register it first \(svc agents register --id alhpa\), or pass --register/,
    );
    const operator = (parse(readFileSync(s.configFile, 'utf8')) as Json).auth.tokens.find((x: Json) => x.id === 'operator').value;
    assert.is((await s.get('/v1/agents/alhpa', operator)).status, 404);
    assert.is((await s.get('/v1/agents/alpha', operator)).status, 200);
    assert.not.ok(existsSync(path.join(keptDir, 'alhpa.token')));
    assert.not.ok(existsSync(path.join(p, '.mcp.json')));
  },
);

t.run();

const remote = suite<Ctx>('svc connect --remote');
remote.before(useShared);
remote.after(async (ctx) => {
  await ctx.s?.dispose();
  if (ctx.root) rmSync(ctx.root, { recursive: true, force: true });
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

remote(
  'claude without claude on PATH: .mcp.json gets the http entry with the kept token, other servers kept, whoami proven',
  async (ctx) => {
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
  },
);

remote('claude with claude on PATH: runs claude mcp add --transport http with the Authorization header', async (ctx) => {
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

remote('codex: [mcp_servers.NAME] has the url and bearer_token_env_var, and no token in the file', async (ctx) => {
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

remote('cursor: .cursor/mcp.json gets url and headers; the default agent is the client name', async (ctx) => {
  const p = ctx.project();
  const r = await ctx.run(['connect', 'cursor', '--config', ctx.s.configFile, '--remote', '--yes'], p);
  assert.is(r.code, 0, r.stderr);
  const e = JSON.parse(readFileSync(path.join(p, '.cursor', 'mcp.json'), 'utf8')).mcpServers.svc;
  assert.equal(Object.keys(e).sort(), ['headers', 'url']);
  assert.is(e.url, `${ctx.s.url}/v1/mcp`);
  assert.is(await whoamiOf(e.url, e.headers), 'cursor');
});

remote('--print shows the http entry without the token and writes nothing', async (ctx) => {
  const p = ctx.project();
  const r = await ctx.run(['connect', 'cursor', '--agent', 'alpha', '--config', ctx.s.configFile, '--remote', '--print'], p);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /"Authorization": "Bearer <the token of the agent>"/);
  assert.not.match(r.stdout, /agt_v1_/);
  assert.not.ok(existsSync(path.join(p, '.cursor')));
});

remote('svc mcp --print-config CLIENT --remote prints the http form with the kept token; none kept is a usage error', async (ctx) => {
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

remote.run();
