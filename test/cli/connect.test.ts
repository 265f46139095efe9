// `svc connect claude|codex|cursor` as a process against a real server, with a temp HOME and a
// temp project: the agent is registered (or its kept token reused), the client's config is merged
// (other entries kept, no token written), whoami is proven through the written entry, --print
// writes nothing, and without a TTY it asks for --yes.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, freePort, type CliResult, MEMORY_STORE } from '../helpers/cli.js';
import { startMcp } from '../helpers/mcp.js';
import { startServer, SVC_BIN, type TestServer } from '../helpers/server.js';

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

const t = suite<Ctx>('svc connect');

t.before(async (ctx) => {
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

/** The args an entry runs svc mcp with, after the node binary and the running svc script (SVC_BIN here). */
const mcpArgs = (args: string[]) => args.slice(args.indexOf('mcp'));

t(
  'claude without claude on PATH: merges .mcp.json (other servers kept, no token), registers the agent and proves whoami',
  async ({ run, s, keptDir, project }) => {
    const p = project();
    writeFileSync(
      path.join(p, '.mcp.json'),
      JSON.stringify({ mcpServers: { other: { command: 'other-server', args: ['--x'] } }, extra: true }, null, 2),
    );
    const r = await run(['connect', 'claude', '--agent', 'alpha', '--config', s.configFile, '--yes'], p);
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
    const r = await run(['connect', 'codex', '--name', 'codey', '--agent', 'codexer', '--yes'], dir);
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
    const r = await run(['connect', 'cursor', '--config', s.configFile, '--yes'], p);
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
  const r = await run(['connect', 'claude', '--agent', 'notty', '--config', s.configFile], p);
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

t.run();
