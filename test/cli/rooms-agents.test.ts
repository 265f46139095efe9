// svc rooms and svc agents run as processes against one real server: tables, --json and exit codes
// (their refusal lines are in hints.test.ts). Then what every client command shares, against the
// same server: where it connects (--url, SVC_URL, the config), colour only on a TTY, usage errors
// (exit 2), --help with an example, --version, and the one-line errors when no server answers;
// a server's error text reaches the terminal without escapes, and a reader that hangs up
// (`svc send --help | head -2`) ends the command quietly.

import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SVC_BIN, startServer, TOKENS, type TestServer } from '../helpers/server.js';
import { cleanEnv, cli, deadUrl, MEMORY_STORE, scriptBin } from '../helpers/cli.js';
import { helpAt, svcProgram } from '../helpers/help-text.js';

const ADMIN = TOKENS.admin.value;

/** One server for both suites (the second one's `after` stops it). */
let server: Promise<TestServer> | undefined;
const shared = () =>
  (server ??= startServer({
    config: {
      store: MEMORY_STORE,
      rooms: [
        { id: 'general', name: 'General', members: ['alpha'] },
        { id: 'brief', members: ['alpha'], retention: { max_messages: 50 } },
      ],
    },
  }));

const t = suite<{ s: TestServer; as: (args: string[], env?: Record<string, string>) => ReturnType<typeof cli> }>(
  'svc rooms and agents against a running server',
);
t.before(async (ctx) => {
  ctx.s = await shared();
  ctx.as = (args, env = {}) => cli([...args, '--url', ctx.s.url], { env: { SVC_TOKEN: ADMIN, ...env } });
});

t('rooms list prints an aligned table with a header, and --json the API shape', async ({ as }) => {
  const [human, machine] = await Promise.all([as(['rooms', 'list']), as(['rooms', 'list', '--json'])]);
  assert.is(human.code, 0, human.stderr);
  const lines = human.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^ID\s+NAME\s+VISIBILITY\s+WRITE POLICY\s+MEMBERS$/);
  const row = lines.find((l) => l.startsWith('general'))!;
  assert.match(row, /^general\s+General\s+public\s+members\s+alpha$/);
  // Aligned: every column starts at the same offset in the header and the row.
  assert.is(row.indexOf('public'), lines[0]!.indexOf('VISIBILITY'));
  assert.not.match(human.stdout, /\x1b\[/, 'no colour when stdout is not a TTY');
  assert.is(machine.code, 0, machine.stderr);
  const body = JSON.parse(machine.stdout);
  assert.equal(
    body.rooms.map((r: { id: string }) => r.id),
    ['general', 'brief'],
  );
  assert.is(body.rooms[0].fqid, 'svc://testnet/rooms/general');
});

t('rooms create, get, members and delete round-trip, each exiting 0', async ({ as, s }) => {
  const created = await as([
    'rooms',
    'create',
    'ops',
    '--name',
    'Ops',
    '--member',
    'alpha,beta',
    '--visibility',
    'private',
    '--write-policy',
    'operators',
  ]);
  assert.is(created.code, 0, created.stderr);
  assert.match(created.stdout, /created room ops \(private, write policy operators, members: alpha, beta\)/);

  const got = await as(['rooms', 'get', 'ops']);
  assert.is(got.code, 0, got.stderr);
  assert.match(got.stdout, /^id\s+ops$/m);
  assert.match(got.stdout, /^members\s+alpha, beta$/m);
  assert.match(got.stdout, /^retention\s+forever$/m);
  const brief = await as(['rooms', 'get', 'brief']);
  assert.match(brief.stdout, /^retention\s+50 messages \(the room\)$/m);
  const gotJson = JSON.parse((await as(['rooms', 'get', 'ops', '--json'])).stdout);
  assert.is(gotJson.write_policy, 'operators');

  const changed = await as(['rooms', 'members', 'ops', '--add', 'gamma', '--remove', 'beta']);
  assert.is(changed.code, 0, changed.stderr);
  assert.match(changed.stdout, /room ops: \+gamma -beta/);
  assert.match(changed.stdout, /members: alpha, gamma/);
  const members = await as(['rooms', 'members', 'ops', '--json']);
  assert.equal(JSON.parse(members.stdout), { room_id: 'ops', members: ['alpha', 'gamma'] });
  assert.equal((await s.get('/v1/rooms/ops', ADMIN)).body.members, ['alpha', 'gamma']);

  const removed = await as(['rooms', 'delete', 'ops']);
  assert.is(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /removed room ops \(soft/);
  assert.is((await s.get('/v1/rooms/ops', ADMIN)).status, 404);
});

t('agents register, list, get and delete, with the registration shown', async ({ as }) => {
  const reg = await as(['agents', 'register', '--id', 'delta', '--name', 'Delta']);
  assert.is(reg.code, 0, reg.stderr);
  assert.match(reg.stdout, /registered agent delta \(svc:\/\/testnet\/agents\/delta\)/);
  assert.not.match(reg.stdout, /agent token/, 'a static credential gets no generated token');

  const list = await as(['agents', 'list']);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ID\s+NAME\s+ROOMS\s+FQID$/m);
  assert.match(list.stdout, /^delta\s+Delta\s+-\s+svc:\/\/testnet\/agents\/delta$/m);
  const listJson = JSON.parse((await as(['agents', 'list', '--json'])).stdout);
  assert.ok(listJson.agents.some((a: { id: string }) => a.id === 'delta'));

  const got = await as(['agents', 'get', 'delta', '--json']);
  assert.is(got.code, 0, got.stderr);
  assert.is(JSON.parse(got.stdout).name, 'Delta');

  const del = await as(['agents', 'delete', 'delta']);
  assert.is(del.code, 0, del.stderr);
  assert.match(del.stdout, /removed agent delta/);
  const gone = await as(['agents', 'get', 'delta']);
  assert.is(gone.code, 1);
  assert.match(gone.stderr, /^svc agents get: 404 not_found: agent delta not found; list the agents: svc agents list\n$/);
});

t.run();

const c = suite<{ s: TestServer }>('client command conventions against a running server');
c.before(async (ctx) => {
  ctx.s = await shared();
});
c.after(async (ctx) => ctx.s?.dispose());

c('the URL comes from --url, else SVC_URL, else the config file server.listen_addr', async ({ s }) => {
  const file = path.join(s.dir, 'client.yaml');
  writeFileSync(file, `network: { id: testnet }\nserver: { listen_addr: "127.0.0.1:${s.port}" }\n`, { mode: 0o600 });
  const dead = await deadUrl();
  const [fromConfig, fromEnvConfig, fromEnvUrl, flagWins] = await Promise.all([
    cli(['rooms', 'list', '--config', file], { env: { SVC_TOKEN: ADMIN } }),
    cli(['rooms', 'list'], { env: { SVC_TOKEN: ADMIN, SVC_CONFIG: file } }),
    cli(['rooms', 'list'], { env: { SVC_TOKEN: ADMIN, SVC_URL: s.url }, cwd: s.dir }),
    cli(['rooms', 'list', '--url', s.url], { env: { SVC_TOKEN: ADMIN, SVC_URL: dead } }),
  ]);
  for (const r of [fromConfig, fromEnvConfig, fromEnvUrl, flagWins]) {
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^general\s/m);
  }
});

c('on a TTY tables are coloured, unless NO_COLOR is set', async ({ s }) => {
  const script = scriptBin();
  const command = `'${process.execPath}' '${SVC_BIN}' rooms list --url ${s.url} --token ${ADMIN}`;
  const run = (env: Record<string, string | undefined>) =>
    spawnSync(script, ['-qfec', command, '/dev/null'], { env: cleanEnv(env), encoding: 'utf8' });
  const coloured = run({ TERM: 'xterm', NO_COLOR: undefined });
  assert.is(coloured.status, 0, coloured.stdout);
  assert.match(coloured.stdout, /\x1b\[1mID/, 'bold header on a TTY');
  const plain = run({ TERM: 'xterm', NO_COLOR: '1' });
  assert.is(plain.status, 0);
  assert.match(plain.stdout, /^ID\s+NAME/m);
  assert.not.match(plain.stdout, /\x1b\[\d*m/);
});

c('usage errors exit 2 with one line and no stack trace', async ({ s }) => {
  const runs = await Promise.all([
    cli(['rooms', 'get']),
    cli(['rooms', 'create', 'x', '--visibility', 'secret']),
    cli(['rooms', 'list', '--limit', 'lots']),
    cli(['rooms', 'lisst']),
    cli(['rooms', 'list', '--url', 'not a url']),
    cli(['rooms', 'members', 'general', '--add', 'a', '--remove', 'a', '--url', s.url, '--token', ADMIN]),
  ]);
  for (const r of runs) {
    assert.is(r.code, 2, `${r.stderr}`);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.match(runs[0]!.stderr, /missing required argument 'id'/);
  assert.match(runs[1]!.stderr, /Allowed choices are public, private/);
  assert.match(runs[4]!.stderr, /--url: "not a url" is not a URL/);
  assert.match(runs[5]!.stderr, /a: both --add and --remove/);
});

c('--help of every client command shows an example (in-process); svc --help and --version exit 0', async () => {
  const commands = [
    ['rooms'],
    ['rooms', 'list'],
    ['rooms', 'get'],
    ['rooms', 'create'],
    ['rooms', 'delete'],
    ['rooms', 'members'],
    ['agents'],
    ['agents', 'list'],
    ['agents', 'get'],
    ['agents', 'register'],
    ['agents', 'delete'],
    ['apply'],
    ['tail'],
    ['doctor'],
  ];
  const root = svcProgram();
  for (const c of commands) {
    const out = helpAt(c, root);
    assert.match(out, /Usage: svc /, c.join(' '));
    assert.match(out, /Examples?:\n {2}svc /, `${c.join(' ')} --help has an example`);
    if (c.length > 1 || c[0] === 'apply' || c[0] === 'tail' || c[0] === 'doctor')
      assert.match(out, /--url <url>[\s\S]*--token <token>[\s\S]*--config <file>/, c.join(' '));
  }
  const [help, init, version] = await Promise.all([cli(['--help']), cli(['init', '--help']), cli(['--version'])]);
  assert.is(help.code, 0);
  for (const name of ['init', 'serve', 'apply', 'rooms', 'agents', 'tail', 'doctor'])
    assert.match(help.stdout, new RegExp(`^  ${name}\\b`, 'm'));
  assert.is(init.code, 0);
  assert.match(init.stdout, /Example:\n {2}svc init --yes/);
  assert.is(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
});

c.run();

const none = suite<{ url: string }>('client commands with no server at the URL');
none.before(async (ctx) => {
  ctx.url = await deadUrl();
});

none('each says no server is running at that URL and how to start one, exit 1', async ({ url }) => {
  const runs = await Promise.all([
    cli(['rooms', 'list', '--url', url]),
    cli(['rooms', 'create', 'x', '--url', url, '--token', ADMIN]),
    cli(['agents', 'list', '--url', url]),
    cli(['agents', 'register', '--id', 'x'], { env: { SVC_URL: url } }),
  ]);
  for (const r of runs) {
    assert.is(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`no svc server is running at ${url.replace(/\./g, '\\.')} \\(connection refused\\); start it with \`svc serve\``),
    );
    assert.is(r.stderr.trim().split('\n').length, 1, 'one line');
    assert.is(r.stdout, '');
  }
});

none('the config the URL came from is named in the start hint', async ({ url }) => {
  const port = new URL(url).port;
  const tmp = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
  try {
    const file = path.join(tmp, 'other.yaml');
    writeFileSync(file, `network: { id: x }\nserver: { listen_addr: "127.0.0.1:${port}" }\n`);
    const r = await cli(['agents', 'list', '--config', file]);
    assert.is(r.code, 1);
    assert.match(r.stderr, new RegExp(`start it with \`svc serve --config ${file.replace(/[.]/g, '\\.')}\``));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

none('--debug adds the cause; without it there is no stack trace', async ({ url }) => {
  const [plain, debug] = await Promise.all([cli(['rooms', 'list', '--url', url]), cli(['rooms', 'list', '--url', url, '--debug'])]);
  assert.not.match(plain.stderr, /\n\s+at /);
  assert.match(debug.stderr, /ECONNREFUSED[\s\S]*\n\s+at /);
});

none.run();

const text = suite<{ server: http.Server; url: string }>('server error text on the terminal');
text.before(async (ctx) => {
  ctx.server = http.createServer((_req, res) => {
    const body = JSON.stringify({
      error: 'bad\u001b[8m hidden \u001b[0m\u001b[2J\u001b]0;title\u0007 \u202etxt.exe\u200b end',
      code: 'bad_request',
    });
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => ctx.server.listen(0, '127.0.0.1', () => r()));
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
});
text.after(async (ctx) => new Promise<void>((r) => ctx.server.close(() => r())));

text('an error message holding colour codes, other escapes or bidi characters prints without them', async ({ url }) => {
  const r = await cli(['rooms', 'list', '--url', url, '--token', 'some-token-0123456789']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /^svc rooms list: 400 bad_request: bad\?\[8m hidden .* end/);
  assert.not.match(r.stderr, /[\u001b\u0007\u202e\u200b]/, JSON.stringify(r.stderr));
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
});

text.run();

const pipe = suite('broken pipe');

/** Runs `svc args`, destroys its stdout after the first chunk, returns its stderr and exit. */
function readFirstChunkThenHangUp(args: string[]): Promise<{ stderr: string; code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SVC_BIN, ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    p.stdout.once('data', () => p.stdout.destroy());
    p.on('exit', (code, signal) => resolve({ stderr, code, signal }));
  });
}

pipe('a help text written to a reader that hung up ends without a stack trace, ten times in a row', async () => {
  for (let i = 0; i < 10; i++) {
    // A long output (help of every command) so the writes outlive the reader.
    const r = await readFirstChunkThenHangUp(['send', '--help']);
    assert.not.match(r.stderr, /EPIPE|Unhandled|at .*\(node:/, r.stderr);
    assert.is(r.signal, null);
    assert.ok(r.code === 0, `exit ${r.code}`);
  }
});

pipe.run();
