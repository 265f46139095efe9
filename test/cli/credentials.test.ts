// Kept agent credentials, the CLI as processes against servers in the test process (what the CLI
// does is all there is to see here): `svc agents register` keeps the token
// owner-only beside the config (one folder per network and server), and from that folder send,
// read, agent run and mcp act as the agent with no token flag; an agent token names its agent;
// `svc agents token`; the operator token is never sent where an agent credential is needed.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { startAgentRun, writeBot } from '../helpers/agent-run.js';
import { cli, freePort, spawnCli, type CliResult, MEMORY_STORE } from '../helpers/cli.js';
import { startMcp } from '../helpers/mcp.js';
import { freshSchema } from '../helpers/pg.js';
import { startApp } from '../helpers/app.js';
import { startPgApp } from '../helpers/pg-server.js';
import { eventually, type HttpServer, type Json } from '../helpers/server.js';

interface Ctx {
  root: string;
  dir: string;
  home: string;
  s: HttpServer;
  operator: string;
  keptDir: string;
  /** `svc ...` from the config folder with HOME set, no token flags. */
  run: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
}

const t = suite<Ctx>('kept agent credentials');

t.before(async (ctx) => {
  ctx.root = mkdtempSync(path.join(tmpdir(), 'svc-creds-'));
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
  ctx.operator = parse(readFileSync(file, 'utf8')).auth.tokens.find((x: { id: string }) => x.id === 'operator').value;
  ctx.s = await startApp({ dir: ctx.dir, keepConfig: true });
  // Kept by the network's identity: its id and the uid its store holds.
  ctx.keptDir = path.join(ctx.dir, '.svc', 'agents', `home@${(await ctx.s.get('/v1/network')).body.uid}`);
  ctx.run = (args, env = {}) => cli(args, { cwd: ctx.dir, env: { HOME: ctx.home, ...env } });
});
t.after(async (ctx) => {
  await ctx.s?.dispose();
  rmSync(ctx.root, { recursive: true, force: true });
});

t(
  'svc agents register prints the token once and keeps it owner-only beside the config, in a folder of this network and server',
  async ({ run, keptDir }) => {
    const r = await run(['agents', 'register', '--id', 'alpha']);
    assert.is(r.code, 0, r.stderr);
    const file = path.join(keptDir, 'alpha.token');
    const token = /agent token \(shown once; kept in (\S+)\): (agt_v1_\S+)/.exec(r.stdout);
    assert.ok(token, r.stdout);
    assert.is(token![1], file);
    assert.is(readFileSync(file, 'utf8'), `${token![2]}\n`);
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.is(statSync(keptDir).mode & 0o777, 0o700);
    // Registering again sends the kept token: the same record, nothing new to show.
    const again = await run(['agents', 'register', '--id', 'alpha']);
    assert.is(again.code, 0, again.stderr);
    assert.not.match(again.stdout, /agt_v1_/);
    assert.match(again.stdout, /its token is kept in .*alpha\.token/);
  },
);

t(
  'svc send --as alpha and svc read --as alpha from the config folder use the kept token (no token flags)',
  async ({ run, s, operator }) => {
    const sent = await run(['send', '--as', 'alpha', '--room', 'general', 'kept', 'credentials', 'work']);
    assert.is(sent.code, 0, sent.stderr);
    const id = /^sent (\S+) to #general/.exec(sent.stdout)![1];
    const hist = (await s.get('/v1/rooms/general/messages', operator)).body.messages as Json[];
    const m = hist.find((x) => x.id === id);
    assert.is(m.from.type, 'agent');
    assert.is(m.from.id, 'alpha');
    const read = await run(['read', '--as', 'alpha', '--room', 'general']);
    assert.is(read.code, 0, read.stderr);
    assert.match(read.stdout, /alpha\s+\S+\s+kept credentials work/);
  },
);

t('svc search --as alpha and svc tail --as alpha use the kept token too', async ({ run, dir, home }) => {
  await eventually(
    async () => /alpha: kept \*\*credentials\*\* work/.test((await run(['search', '--as', 'alpha', 'credentials'])).stdout),
    10_000,
    'the search hit',
  );
  const tail = spawnCli(['tail', '--as', 'alpha', '--room', 'general', '--count', '1'], { cwd: dir, env: { HOME: home } });
  let out = '';
  let err = '';
  tail.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  tail.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = new Promise<number | null>((resolve) => tail.once('close', resolve));
  await eventually(async () => /following events/.test(err), 10_000, 'tail to start');
  const sent = await run(['send', '--as', 'alpha', '--room', 'general', 'tailed']);
  assert.is(sent.code, 0, sent.stderr);
  assert.is(await code, 0, err);
  assert.match(out, /#general alpha: tailed/);
  assert.not.match(err, /anonymous/);
});

t(
  'with an agent token given, --as is read from the token, and a different --as is a usage error',
  async ({ run, keptDir, s, operator }) => {
    const token = readFileSync(path.join(keptDir, 'alpha.token'), 'utf8').trim();
    const sent = await run(['send', '--room', 'general', 'no', 'as', 'needed', '--json'], { SVC_TOKEN: token });
    assert.is(sent.code, 0, sent.stderr);
    const id = JSON.parse(sent.stdout).message_id as string;
    const hist = (await s.get('/v1/rooms/general/messages', operator)).body.messages as Json[];
    assert.is(hist.find((x) => x.id === id).from.id, 'alpha');
    const same = await run(['send', '--as', 'alpha', '--room', 'general', 'checked'], { SVC_TOKEN: token });
    assert.is(same.code, 0, same.stderr);
    const wrong = await run(['send', '--as', 'beta', '--room', 'general', 'nope'], { SVC_TOKEN: token });
    assert.is(wrong.code, 2, wrong.stderr);
    assert.match(wrong.stderr, /--as beta: the token given \(SVC_TOKEN\) belongs to agent alpha/);
  },
);

t(
  'svc agent run --agent alpha from the config folder attaches with the kept token and replies to a mention',
  async ({ run, dir, home, s, operator }) => {
    const bot = writeBot(dir);
    // A mention wakes a member of the room.
    const add = await s.req('PATCH', '/v1/rooms/general/members', { token: operator, body: { add: ['alpha'] } });
    assert.ok(add.status < 300, add.text);
    const p = await startAgentRun(
      ['--agent', 'alpha', '--', process.execPath, bot],
      { RUNS_FILE: path.join(dir, 'runs'), REPLY_TEXT: 'alpha answers', HOME: home },
      dir,
    );
    try {
      await p.waitLog(/attached as alpha to network home/);
      const ask = await run(['send', '--room', 'general', '--human', 'ops', '@alpha', 'are', 'you', 'there?']);
      assert.is(ask.code, 0, ask.stderr);
      await eventually(
        async () =>
          ((await s.get('/v1/rooms/general/messages', operator)).body.messages as Json[]).some(
            (m) => m.from.id === 'alpha' && m.parts[0].text === 'alpha answers',
          ),
        20_000,
        'the reply',
      );
    } finally {
      await p.stop();
    }
  },
);

t('svc mcp --agent alpha with the config uses the kept token: whoami and the attachment are alpha', async ({ s, home }) => {
  const m = await startMcp(['--config', s.configFile, '--agent', 'alpha'], { HOME: home });
  try {
    await m.waitFor(/attached as alpha on home/);
    const w = await m.call('whoami');
    assert.match(w.text, /^agent alpha /);
  } finally {
    await m.close();
  }
});

t('svc agents token prints a kept token, and refuses with the fix when none is kept', async ({ run, keptDir }) => {
  const r = await run(['agents', 'token', 'alpha']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, readFileSync(path.join(keptDir, 'alpha.token'), 'utf8'));
  const none = await run(['agents', 'token', 'ghost']);
  assert.is(none.code, 1);
  assert.is(none.stdout, '');
  assert.match(none.stderr, /no token of ghost is kept for network home at http:\/\/127\.0\.0\.1:\d+/);
  assert.match(none.stderr, /svc agents register --id ghost/);
  assert.match(none.stderr, /kept here: alpha/);
});

t('agent run, mcp and mcp --print-config refuse to use the operator token as an agent and name the fix', async ({ run, s, home }) => {
  const fix = /the config's operator token is an admin token and cannot act as agent ghost .*svc agents register --id ghost.*svc connect/;
  const ar = await run(['agent', 'run', '--agent', 'ghost', '--', 'cat']);
  assert.is(ar.code, 1, ar.stderr);
  assert.match(ar.stderr, fix);
  assert.not.match(ar.stderr, /scope \(one of: attach\)/);
  const mcp = await run(['mcp', '--agent', 'ghost']);
  assert.is(mcp.code, 1, mcp.stderr);
  assert.match(mcp.stderr, fix);
  const pc = await run(['mcp', '--print-config', 'claude', '--agent', 'ghost']);
  assert.is(pc.code, 1, pc.stderr);
  assert.is(pc.stdout, '', 'no config that cannot work');
  assert.match(pc.stderr, fix);
  // With a kept token the snippet names the config and the agent, and holds no token.
  const ok = await cli(['mcp', '--print-config', 'cursor', '--agent', 'alpha', '--config', s.configFile], { env: { HOME: home } });
  assert.is(ok.code, 0, ok.stderr);
  const entry = JSON.parse(ok.stdout).mcpServers.svc;
  assert.ok(entry.args.includes(s.configFile) && entry.args.includes('alpha'), ok.stdout);
  assert.is(entry.env, undefined);
  assert.not.match(ok.stdout, /agt_v1_|SVC_TOKEN/);
});

t(
  'a 403 "registered to another credential" names the kept token that works, or the commands that keep one',
  async ({ run, root, s, operator }) => {
    // delta is claimed elsewhere (another HOME, no config): nothing of it is kept here.
    const elsewhere = path.join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const reg = await cli(['agents', 'register', '--id', 'delta', '--url', s.url], { cwd: elsewhere, env: { HOME: elsewhere } });
    assert.is(reg.code, 0, reg.stderr);
    const r = await run(['send', '--as', 'delta', '--room', 'general', 'hi']);
    assert.is(r.code, 1);
    assert.match(r.stderr, /agent delta is registered to another credential/);
    assert.match(r.stderr, /no token of delta is kept for this server; register it with `svc agents register --id delta`.*svc connect/);
    assert.not.match(r.stderr, /scope this needs/);
    // Claiming it here (409) says how to bring its token.
    const claim = await run(['agents', 'register', '--id', 'delta']);
    assert.is(claim.code, 1);
    assert.match(
      claim.stderr,
      /already registered to another credential; pick another id, or, if delta is yours, bring its token here: SVC_TOKEN=agt_v1_\.\.\. svc agents register --id delta/,
    );
    // Brought here as that hint says (the token elsewhere's register printed), the token is kept,
    // and --as delta works with no token flag.
    const token = /agent token \(shown once; kept in \S+\): (agt_v1_\S+)/.exec(reg.stdout)?.[1];
    assert.ok(token, reg.stdout);
    const brought = await run(['agents', 'register', '--id', 'delta'], { SVC_TOKEN: token });
    assert.is(brought.code, 0, brought.stderr);
    assert.match(brought.stdout, /its token is kept in \S+delta\.token/);
    const now = await run(['send', '--as', 'delta', '--room', 'general', 'delta', 'is', 'here']);
    assert.is(now.code, 0, now.stderr);
    // The operator token given on purpose while alpha's token is kept: the hint points at it.
    const op = await run(['send', '--as', 'alpha', '--room', 'general', 'hi'], { SVC_TOKEN: operator });
    assert.is(op.code, 1);
    assert.match(op.stderr, /a token of alpha is kept in \S+alpha\.token: drop SVC_TOKEN and pass --as alpha to use it/);
  },
);

t('a token an older svc agent run kept in its state folder is used and copied to the kept place', async ({ run, s, keptDir }) => {
  const claim = await s.post('/v1/agents/register', { requested_agent_id: 'oldie' });
  assert.is(claim.status, 200, claim.text);
  const legacy = path.join(s.dir, '.svc', 'agent-run', 'home', 'oldie', 'agent-token');
  mkdirSync(path.dirname(legacy), { recursive: true });
  writeFileSync(legacy, `${claim.body.agent_token}\n`, { mode: 0o600 });
  assert.not.ok(existsSync(path.join(keptDir, 'oldie.token')));
  const r = await run(['send', '--as', 'oldie', '--room', 'general', 'still', 'me']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /the token of oldie found in \S+agent-token is now kept in \S+oldie\.token/);
  assert.is(readFileSync(path.join(keptDir, 'oldie.token'), 'utf8'), `${claim.body.agent_token}\n`);
});

t(
  'two networks called home on two servers (this one, and one on Postgres): the same agent id registered on both from one HOME keeps two tokens, and each server gets its own',
  async ({ root, s: a }) => {
    // This suite's server is the first (network home, open registration); the second is another
    // network that also kept the id home. A HOME of its own and no config: only --url tells them apart.
    const home = path.join(root, 'two-home');
    mkdirSync(home);
    const pg = await freshSchema();
    const b = await startPgApp(pg, {
      network: { id: 'home', name: 'Home' },
      auth: { mode: 'open', agent_registration: 'open', tokens: [] },
      rooms: [{ id: 'general', name: 'General', write_policy: 'registered_agents' }],
    });
    try {
      const env = { HOME: home };
      const uid = async (s: HttpServer) => (await s.get('/v1/network')).body.uid as string;
      const [ua, ub] = [await uid(a), await uid(b)];
      assert.is.not(ua, ub);
      for (const s of [a, b]) {
        const r = await cli(['agents', 'register', '--id', 'twin', '--url', s.url], { cwd: home, env });
        assert.is(r.code, 0, r.stderr);
        assert.match(
          r.stdout,
          new RegExp(`kept in ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.svc/agents/home@${s === a ? ua : ub}/twin\\.token`),
        );
      }
      const ta = readFileSync(path.join(home, '.svc', 'agents', `home@${ua}`, 'twin.token'), 'utf8');
      const tb = readFileSync(path.join(home, '.svc', 'agents', `home@${ub}`, 'twin.token'), 'utf8');
      assert.is.not(ta, tb);
      for (const s of [a, b]) {
        const r = await cli(['send', '--as', 'twin', '--room', 'general', '--url', s.url, `to ${s.port}`], { cwd: home, env });
        assert.is(r.code, 0, r.stderr);
        const t = await cli(['agents', 'token', 'twin', '--url', s.url], { cwd: home, env });
        assert.is(t.stdout, s === a ? ta : tb);
      }
      // svc mcp on the Postgres one acts as twin with that server's kept token.
      const m = await startMcp(['--url', b.url, '--agent', 'twin'], env);
      try {
        await m.waitFor(/attached as twin on home/);
      } finally {
        await m.close();
      }
    } finally {
      await b.dispose();
      await pg.drop();
    }
  },
);

t.run();

const restart = suite<{ dir: string; home: string }>('kept credentials of a server whose port is picked at start');

restart.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-creds-port0-'));
  ctx.home = path.join(ctx.dir, 'home');
  mkdirSync(ctx.home);
});
restart.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

restart('a token kept for listen_addr 127.0.0.1:0 is found again after a restart on another port', async ({ dir, home }) => {
  const run = (args: string[]) => cli(args, { cwd: dir, env: { HOME: home } });
  const init = await run(['init', '--yes', '--network-id', 'port0', '--listen', '127.0.0.1:0']);
  assert.is(init.code, 0, init.stderr);
  // The server in the test process, on the folder's config as `svc serve` there would be.
  const first = await startApp({ dir, keepConfig: true });
  try {
    const reg = await run(['agents', 'register', '--id', 'alpha']);
    assert.is(reg.code, 0, reg.stderr);
    // Kept by the network's identity (its id and store's uid), which no port changes.
    assert.match(reg.stdout, /kept in .*\/\.svc\/agents\/port0@nuid_\w+\/alpha\.token/);
  } finally {
    await first.stop();
  }
  const second = await startApp({ dir, keepConfig: true });
  try {
    assert.is.not(second.url, first.url);
    const sent = await run(['send', '--as', 'alpha', '--room', 'general', 'after', 'the', 'restart']);
    assert.is(sent.code, 0, sent.stderr);
    const read = await run(['read', '--room', 'general']);
    assert.match(read.stdout, /alpha\s+\S+\s+after the restart/);
  } finally {
    await second.stop();
  }
});

restart.run();
