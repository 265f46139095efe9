// The first run as processes: `svc init --yes`, `svc serve`, then client commands with no token
// given act as the operator (the operator token of svc.yaml, sent only to that config's server),
// anonymous HTTP callers still cannot write, and `svc console` prints a one-time sign-in link.

import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { networkIdOfFolder } from '../../src/config/init.js';
import { cli, freePort, onMemoryStore, spawnCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';

const t = suite<{ dir: string; s: TestServer; port: number }>('first run: svc init, svc serve, then the operator acts without a token');

t.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-first-run-'));
  const init = await cli(['init', '--yes', '--network-id', 'home'], { cwd: ctx.dir });
  assert.is(init.code, 0, init.stderr);
  assert.match(init.stdout, /operator token written to svc\.yaml/);
  assert.match(init.stdout, /svc console/);
  // The default 127.0.0.1:8787 may be taken on a test machine: same posture, another port.
  ctx.port = await freePort();
  const file = path.join(ctx.dir, 'svc.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('listen_addr: 127.0.0.1:8787', `listen_addr: 127.0.0.1:${ctx.port}`), {
    mode: 0o600,
  });
  // Nothing here reads the store back after a restart: the memory store starts on half the CPU
  // (helpers/cli.ts). The serve --init suite below runs the default config as written, sqlite included.
  onMemoryStore(file);
  ctx.s = await startServer({ dir: ctx.dir, keepConfig: true });
});
t.after(async (ctx) => {
  await ctx.s?.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

t(
  'svc init writes an operator token (observe, write, admin) into the owner-only svc.yaml, and serve starts without warnings about it',
  ({ dir, s }) => {
    const file = path.join(dir, 'svc.yaml');
    assert.is(statSync(file).mode & 0o777, 0o600);
    const c = parse(readFileSync(file, 'utf8'));
    assert.is(c.auth.mode, 'open');
    const op = c.auth.tokens.find((x: { id: string }) => x.id === 'operator');
    assert.equal(op.scopes, ['observe', 'write', 'admin']);
    assert.ok(op.value.length >= 40);
    assert.is(s.port, Number(c.server.listen_addr.split(':')[1]));
  },
);

t('svc rooms create with no token given succeeds against the config server', async ({ dir }) => {
  const r = await cli(['rooms', 'create', 'ops', '--visibility', 'private'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /created room ops \(private/);
  const list = await cli(['rooms', 'list'], { cwd: dir });
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ops\s/m);
  assert.not.match(list.stderr, /anonymous/);
});

t('anonymous HTTP callers still cannot create rooms or see the private one', async ({ s }) => {
  const r = await s.post('/v1/rooms', { id: 'nope' });
  assert.is(r.status, 401);
  const rooms = await s.get('/v1/rooms');
  assert.is(rooms.status, 200);
  assert.not.ok(rooms.body.rooms.some((x: { id: string }) => x.id === 'ops'));
});

t('svc doctor and svc agents list use the operator token too (pairing status readable, no anonymous hint)', async ({ dir }) => {
  const doctor = await cli(['doctor'], { cwd: dir });
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, /pairings\s+none configured/);
  assert.not.match(doctor.stdout, /cannot read pairing status/);
  const agents = await cli(['agents', 'list'], { cwd: dir });
  assert.is(agents.code, 0, agents.stderr);
  assert.not.match(agents.stdout + agents.stderr, /anonymous/);
});

t(
  'svc agents register claims anonymously (not with the operator token), so the agent gets its own token and can send',
  async ({ dir, s }) => {
    const r = await cli(['agents', 'register', '--id', 'scout', '--json'], { cwd: dir });
    assert.is(r.code, 0, r.stderr);
    const reg = JSON.parse(r.stdout);
    assert.is(reg.agent_id, 'scout');
    assert.match(reg.agent_token, /^agt_v1_/);
    const room = await cli(['rooms', 'create', 'lobby', '--write-policy', 'registered_agents'], { cwd: dir });
    assert.is(room.code, 0, room.stderr);
    const sent = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'lobby' }, from: { type: 'agent', id: 'scout' }, parts: [{ kind: 'text', text: 'hello' }] },
      reg.agent_token,
    );
    assert.ok(sent.status === 200 || sent.status === 201, `${sent.status} ${sent.text}`);
  },
);

t('--token and SVC_TOKEN win over the operator token', async ({ dir }) => {
  const flag = await cli(['rooms', 'create', 'x1', '--token', 'not-a-real-token'], { cwd: dir });
  assert.is(flag.code, 1);
  assert.match(flag.stderr, /401|not valid/);
  const env = await cli(['rooms', 'create', 'x2'], { cwd: dir, env: { SVC_TOKEN: 'not-a-real-token' } });
  assert.is(env.code, 1);
  assert.match(env.stderr, /401|not valid/);
});

t('the operator token never goes to a server other than the config one', async ({ dir }) => {
  const seen: (string | undefined)[] = [];
  const other = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ rooms: [], page: { has_more: false } }));
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  try {
    const port = (other.address() as { port: number }).port;
    const r = await cli(['rooms', 'list', '--url', `http://127.0.0.1:${port}`], { cwd: dir });
    assert.is(r.code, 0, r.stderr);
    assert.ok(seen.length > 0);
    assert.equal(
      seen.filter((h) => h !== undefined),
      [],
    );
  } finally {
    await new Promise((resolve) => other.close(resolve));
  }
});

t('--url naming the config server (localhost or 127.0.0.1) still uses the operator token', async ({ dir, port }) => {
  const r = await cli(['rooms', 'create', 'via-url', '--url', `http://localhost:${port}`], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
});

async function openLink(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual' });
}

t('svc console prints a sign-in link that works once, gives a write session, and fails the second time', async ({ dir, s }) => {
  const r = await cli(['console'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  const link = r.stdout.trim();
  assert.match(link, new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/console/sign-in\\?code=[A-Za-z0-9_-]{43}$`));
  const token = parse(readFileSync(path.join(dir, 'svc.yaml'), 'utf8')).auth.tokens.find((x: { id: string }) => x.id === 'operator').value;
  assert.not.ok(link.includes(token), 'the long-lived token is not in the URL');
  const head = await fetch(link, { method: 'HEAD', redirect: 'manual' });
  assert.is(head.status, 200, 'a HEAD does not use the link up');
  const first = await openLink(link);
  assert.is(first.status, 303);
  assert.is(first.headers.get('location'), '/console/');
  const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
  assert.match(cookie, /^svc_session=/);
  const session = await fetch(`${s.url}/console/api/session`, { headers: { cookie } });
  const body = (await session.json()) as { signed_in: boolean; scopes: string[]; can_send_human: boolean };
  assert.is(body.signed_in, true);
  assert.equal(body.scopes, ['admin', 'observe', 'write']);
  assert.is(body.can_send_human, true);
  const second = await openLink(link);
  assert.is(second.status, 401);
  assert.is(second.headers.get('set-cookie'), null);
  assert.match(await second.text(), /already used, has expired/);
});

t('a console link fails after it expires', async ({ dir }) => {
  const r = await cli(['console', '--expires', '1s'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  await new Promise((resolve) => setTimeout(resolve, 1300));
  const late = await openLink(r.stdout.trim());
  assert.is(late.status, 401);
});

t('sign-in codes are issued only to admins with a bearer token', async ({ s }) => {
  const anon = await s.post('/console/api/sign-in-codes', {});
  assert.is(anon.status, 401);
  const bad = await s.post('/console/api/sign-in-codes', { ttl_seconds: 3600 }, 'x');
  assert.is(bad.status, 401);
  const guessed = await openLink(`${s.url}/console/sign-in?code=${'A'.repeat(43)}`);
  assert.is(guessed.status, 401);
});

t('svc console without any token says how to get one (exit 2)', async ({ s }) => {
  const empty = mkdtempSync(path.join(tmpdir(), 'svc-first-run-empty-'));
  try {
    const r = await cli(['console', '--url', s.url], { cwd: empty });
    assert.is(r.code, 2);
    assert.match(r.stderr, /^svc console: no admin token for /);
    assert.is(r.stderr.trim().split('\n').length, 1);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

t.run();

const start = suite('first run through npm start (svc serve --init)');

start('svc serve --init writes the config with the operator token, says how to act, and svc rooms create works with no token', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-first-start-'));
  const port = await freePort();
  const p = spawnCli(['serve', '--init', '--listen', `127.0.0.1:${port}`], { cwd: dir });
  let err = '';
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise((r) => p.once('exit', r));
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      p.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/svc listening on/.test(out)) resolve();
      });
      p.once('exit', () => reject(new Error(`serve exited: ${err}`)));
    });
    assert.match(err, /wrote a default config to .*svc\.yaml/);
    assert.match(err, /operator token written to it/);
    assert.match(err, /svc rooms create ID .*svc console/);
    // The written file listens on the default port; the server runs on another one, which its
    // runtime file tells the client commands of this folder.
    const file = path.join(dir, 'svc.yaml');
    assert.match(readFileSync(file, 'utf8'), /listen_addr: 127\.0\.0\.1:8787/);
    assert.is(parse(readFileSync(file, 'utf8')).network.id, networkIdOfFolder(dir), 'the network id is derived from the folder name');
    const runtime = JSON.parse(readFileSync(path.join(dir, '.svc', 'svc.server.json'), 'utf8'));
    assert.is(runtime.url, `http://127.0.0.1:${port}`);
    const ok = await cli(['rooms', 'create', 'ops'], { cwd: dir });
    assert.is(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /created room ops/);
    p.kill('SIGTERM');
    await exited;
    assert.not.ok(existsSync(path.join(dir, '.svc', 'svc.server.json')), 'a clean stop removes the runtime file');
  } finally {
    p.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

start.run();
