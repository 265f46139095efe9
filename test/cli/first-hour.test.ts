// A new user's first hour, as processes on the network `svc init` makes: a mention in `general`
// wakes the agent it names (agents join general when they register), a mention that resolves to
// nobody is named by `svc send` and by MCP send_message with the command that fixes it, a typo in
// `--as` is refused with the closest registered id, and `svc connect` for an agent that `svc agent
// run` holds succeeds and says so.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AgentRunProc, runsOf, startAgentRun, writeBot } from '../helpers/agent-run.js';
import { cli, freePort, onMemoryStore } from '../helpers/cli.js';
import { startMcp } from '../helpers/mcp.js';
import { eventually, startServer, type TestServer } from '../helpers/server.js';

interface Ctx {
  root: string;
  dir: string;
  home: string;
  s: TestServer;
  beta?: AgentRunProc;
  runs: string;
  svc: (args: string[], cwd?: string) => ReturnType<typeof cli>;
}

const t = suite<Ctx>('the first hour on the network svc init makes');

t.before(async (ctx) => {
  ctx.root = mkdtempSync(path.join(tmpdir(), 'svc-first-hour-'));
  ctx.dir = path.join(ctx.root, 'net');
  ctx.home = path.join(ctx.root, 'home');
  mkdirSync(ctx.dir);
  mkdirSync(ctx.home);
  ctx.svc = (args, cwd = ctx.dir) => cli(args, { cwd, env: { HOME: ctx.home } });
  const init = await ctx.svc(['init', '--yes', '--network-id', 'home']);
  assert.is(init.code, 0, init.stderr);
  const file = path.join(ctx.dir, 'svc.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('listen_addr: 127.0.0.1:8787', `listen_addr: 127.0.0.1:${await freePort()}`), {
    mode: 0o600,
  });
  onMemoryStore(file);
  ctx.s = await startServer({ dir: ctx.dir, keepConfig: true });
  for (const id of ['alpha', 'beta']) {
    const r = await ctx.svc(['agents', 'register', '--id', id]);
    assert.is(r.code, 0, r.stderr);
  }
  ctx.runs = path.join(ctx.root, 'runs.jsonl');
});
t.after(async (ctx) => {
  await ctx.beta?.stop();
  await ctx.s?.dispose();
  if (ctx.root) rmSync(ctx.root, { recursive: true, force: true });
});

t('agents registered on a fresh network are members of general', async ({ svc }) => {
  const r = await svc(['rooms', 'members', 'general']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /alpha/);
  assert.match(r.stdout, /beta/);
});

t('svc send --as alpha --room general "@beta ping" wakes beta: its command runs and answers in general', async (ctx) => {
  const bot = writeBot(ctx.root);
  ctx.beta = await startAgentRun(
    ['--agent', 'beta', '--', process.execPath, bot],
    { HOME: ctx.home, RUNS_FILE: ctx.runs, REPLY_TEXT: 'pong from beta' },
    ctx.dir,
  );
  const r = await ctx.svc(['send', '--as', 'alpha', '--room', 'general', '@beta ping']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^sent msg_\S+ to #general\n$/);
  assert.not.match(r.stderr, /not mentioned/);
  await eventually(() => runsOf(ctx.runs).length === 1 || undefined, 20_000, 'beta woken');
  assert.match(runsOf(ctx.runs)[0]!.prompt, /@beta ping/);
  await eventually(
    async () => (await ctx.svc(['read', '--as', 'alpha', '--room', 'general'])).stdout.includes('pong from beta') || undefined,
    20_000,
    'the answer in general',
  );
});

t('svc send names a mention of a non-member with the command that fixes it, and that command does', async ({ svc }) => {
  const made = await svc(['rooms', 'create', 'ops', '--write-policy', 'registered_agents']);
  assert.is(made.code, 0, made.stderr);
  const r = await svc(['send', '--as', 'alpha', '--room', 'ops', '@beta and @bta, look']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^sent msg_\S+ to #ops\n$/);
  assert.match(r.stderr, /^svc send: not mentioned: @beta: beta is not a member of room ops; fix: svc rooms members ops --add beta$/m);
  assert.match(r.stderr, /^svc send: not mentioned: @bta: no agent bta is registered on this network; fix: /m);
  const fix = /fix: (svc rooms members ops --add beta)/.exec(r.stderr)![1]!.split(' ').slice(1);
  const add = await svc(fix);
  assert.is(add.code, 0, add.stderr);
  const again = await svc(['send', '--as', 'alpha', '--room', 'ops', '--mention', 'beta', 'now?']);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stderr, '');
});

t('svc send --help: its own example works on this network, and a mention of beta there is not refused', async ({ svc }) => {
  const help = await svc(['send', '--help']);
  const example = /^ {2}(svc send --room general "deploy finished, @beta please verify")$/m.exec(help.stdout);
  assert.ok(example, help.stdout);
  const r = await svc(['send', '--room', 'general', 'deploy finished, @beta please verify']);
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stderr, /not mentioned/);
});

t('MCP send_message names the candidate that was not mentioned, with the fix', async ({ dir, home }) => {
  const m = await startMcp(['--config', path.join(dir, 'svc.yaml'), '--agent', 'alpha'], { HOME: home });
  try {
    const r = await m.call('send_message', { room_id: 'general', text: 'hi @gamma', mentions: ['beta'] });
    assert.not.ok(r.isError, r.text);
    assert.match(
      r.text,
      /not mentioned: @gamma: no agent gamma is registered on this network; fix: register it \(svc agents register --id gamma\)/,
    );
    const s = r.structuredContent as { unmentioned?: { id: string; reason: string }[] };
    assert.equal(
      s.unmentioned?.map((u) => [u.id, u.reason]),
      [['gamma', 'unknown_agent']],
    );
  } finally {
    await m.close();
  }
});

t('svc apply of the svc.yaml svc init wrote keeps the agents that joined general', async ({ dir, svc }) => {
  const plan = await svc(['apply', path.join(dir, 'svc.yaml'), '--dry-run']);
  assert.is(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /^keep\s+room\s+general\b(?!.*refuse)/m);
  const r = await svc(['apply', path.join(dir, 'svc.yaml')]);
  assert.is(r.code, 0, r.stderr);
  const members = await svc(['rooms', 'members', 'general', '--json']);
  assert.equal(JSON.parse(members.stdout).members, ['alpha', 'beta']);
});

t('a typo in --as is refused with the closest registered id, and nothing is posted', async ({ svc }) => {
  const before = (await svc(['read', '--as', 'alpha', '--room', 'general'])).stdout;
  const r = await svc(['send', '--as', 'alpah', '--room', 'general', 'hello']);
  assert.is(r.code, 2, r.stdout);
  assert.match(
    r.stderr,
    /^svc send: --as alpah: no agent alpah is registered on this network \(did you mean alpha\?\); to make it, register it first: svc agents register --id alpah\n$/,
  );
  const gone = await svc(['send', '--as', 'zzz', '--room', 'general', 'hello']);
  assert.is(gone.code, 2);
  assert.match(gone.stderr, /no agent zzz is registered on this network \(registered: alpha, beta\)/);
  assert.is((await svc(['read', '--as', 'alpha', '--room', 'general'])).stdout, before);
});

t('svc connect for an agent that svc agent run holds: written, proven, and says who holds the attachment', async (ctx) => {
  assert.ok(ctx.beta, 'beta is attached by svc agent run');
  const project = path.join(ctx.root, 'project');
  mkdirSync(project);
  const basePath = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
  const r = await cli(['connect', 'claude', '--agent', 'beta', '--config', path.join(ctx.dir, 'svc.yaml'), '--yes'], {
    cwd: project,
    env: { HOME: ctx.home, PATH: basePath },
  });
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stderr, /retrying in|check failed/);
  // The holder is named: svc agent run's User-Agent with its pid, its address and since when.
  assert.match(
    r.stderr,
    new RegExp(
      `beta is attached already by another runtime with this same token, held by svc-agent-run/\\S+ \\(pid ${ctx.beta.proc.pid}\\) from 127\\.0\\.0\\.1 since \\d{4}-\\d\\d-\\d\\dT`,
    ),
  );
  assert.match(r.stdout, /^connected claude as agent beta of network home \(server svc; whoami answered beta; its live attachment is held/);
  assert.ok(JSON.parse(readFileSync(path.join(project, '.mcp.json'), 'utf8')).mcpServers.svc);
  // beta's runner is still the one attached.
  assert.is(ctx.beta.proc.exitCode, null);
});

t.run();
