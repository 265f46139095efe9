// Every 401/403/404 the CLI prints ends with the command or setting that fixes that case: the pure
// choice with exact values, then each refusal as a real server gives it and the CLI prints it.
// Then the listings the server filters by who asks, against the same server: an anonymous caller
// (no token sent) under public read sees only public rooms and agents in them, and is told so.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { refusalHint, type HintContext } from '../../src/cli/hints.js';
import { cli, freePort, MEMORY_STORE, spawnCli } from '../helpers/cli.js';
import { startServer, TOKENS, type TestServer } from '../helpers/server.js';

const URL_ = 'http://127.0.0.1:8787';
const cfg = path.resolve('svc.yaml');
const anon: HintContext = { url: URL_, configFile: cfg, configExists: true };
const flag: HintContext = { ...anon, tokenSource: '--token' };

const u = suite('refusalHint (pure)');

u('403 not a member names svc rooms members ROOM --add AGENT', () => {
  assert.is(
    refusalHint(403, 'forbidden', 'alpha is not a member of room ops (write_policy: members)', flag),
    'add it to the room: svc rooms members ops --add alpha',
  );
  assert.is(
    refusalHint(403, 'forbidden', 'room ops accepts members and registered local agents only (write_policy: registered_agents)', flag),
    'add the sender to the room (svc rooms members ops --add ID), or send as a registered agent (svc agents register)',
  );
  assert.is(
    refusalHint(403, 'forbidden', 'room ops accepts only operator credentials (write_policy: operators)', flag),
    "send with an operator token: run the command in the server's config folder (or pass --config FILE) so its operator token is used, or pass --token (env SVC_TOKEN)",
  );
});

u('403 missing scope names the scope, where the token came from, and where tokens are configured', () => {
  assert.is(
    refusalHint(403, 'forbidden', 'the token lacks a required scope (one of: admin)', flag),
    "the token given with --token lacks the admin scope this needs: use a token that has it; tokens and their scopes are auth.tokens in the server's config (the operator token svc init writes has observe, write, admin)",
  );
  assert.match(
    refusalHint(403, 'forbidden', 'the token lacks a required scope (one of: write, pair)', { ...anon, tokenSource: 'SVC_TOKEN' })!,
    /^the token in SVC_TOKEN lacks the write or pair scope this needs/,
  );
  assert.is(
    refusalHint(403, 'forbidden', 'self-registered agent tokens may not use this route', flag),
    "this needs an operator token, not an agent's: leave --token and SVC_TOKEN out and run the command in the server's config folder (or pass --config FILE) so its operator token is used",
  );
  assert.is(
    refusalHint(403, 'forbidden', 'human messages are disabled on this network (server.human_ingress: false)', flag),
    "set server.human_ingress: true in the server's config (it reloads on save), or send as an agent (--as)",
  );
  assert.is(
    refusalHint(403, 'forbidden', 'direct messages are disabled on this network (server.direct_messages: false)', flag),
    "set server.direct_messages: true in the server's config (it reloads on save)",
  );
  assert.is(
    refusalHint(403, 'forbidden', 'agent alpha is registered to another credential; send with its own token', flag),
    undefined,
    'credential hints are chosen elsewhere',
  );
});

u('401 says which token was sent from where, and how to fix it', () => {
  assert.is(
    refusalHint(401, 'unauthorized', 'the bearer token is not valid', flag),
    `the token given with --token was refused by ${URL_}: check it against auth.tokens of that server's config, or leave --token out to use the operator token of svc.yaml`,
  );
  assert.is(
    refusalHint(401, 'unauthorized', 'the bearer token is not valid', { ...anon, tokenSource: 'SVC_TOKEN' }),
    `the token in SVC_TOKEN was refused by ${URL_}: check it against auth.tokens of that server's config, or unset SVC_TOKEN to use the operator token of svc.yaml`,
  );
  assert.is(
    refusalHint(401, 'unauthorized', 'the bearer token is not valid', { ...anon, tokenSource: 'config' }),
    `the operator token of svc.yaml was refused by ${URL_}: that server runs with another config or an older copy of it; restart it with svc serve (svc doctor checks)`,
  );
  assert.is(
    refusalHint(401, 'unauthorized', 'this route needs a bearer token with one of the scopes: admin', anon),
    `no token was sent (no --token, no SVC_TOKEN, svc.yaml has no operator token for ${URL_}): run the command in the server's config folder (or pass --config FILE) so its operator token is used, or pass --token (env SVC_TOKEN)`,
  );
  assert.match(
    refusalHint(401, 'unauthorized', 'x', { ...anon, configExists: false })!,
    /^no token was sent \(no --token, no SVC_TOKEN, no svc\.yaml here\)/,
  );
});

u('404 names the listing that shows the right ids, and that an anonymous view hides private ones', () => {
  assert.is(refusalHint(404, 'not_found', 'room nope not found', flag), 'list the rooms: svc rooms list');
  assert.is(refusalHint(404, 'not_found', 'agent nope not found', flag), 'list the agents: svc agents list');
  assert.match(
    refusalHint(404, 'not_found', 'room nope not found', anon)!,
    /^list the rooms: svc rooms list; no token was sent, and what is private looks missing to an anonymous caller: run the command/,
  );
  assert.is(
    refusalHint(404, 'not_found', 'parent message m1 in room ops not found', flag),
    'reply to a message of that room: svc read --room ops shows their ids',
  );
  assert.is(
    refusalHint(404, 'not_found', 'thread t9 not found', flag),
    'check the thread id: GET /v1/rooms/ROOM/threads lists the threads of a room (svc send --room ROOM --thread NEW starts one)',
  );
  assert.is(refusalHint(404, 'not_found', 'dm dm_x not found', flag), 'name the DM by its agents instead: svc read --dm AGENT,AGENT');
  assert.is(refusalHint(404, 'not_found', 'no route for /v1/x', flag), undefined);
  assert.is(refusalHint(409, 'conflict', 'room ops exists', flag), undefined);
});

u.run();

interface Ctx {
  s: TestServer;
  dir: string;
  op: { dir: string; s: TestServer; port: number };
}

let server: TestServer | undefined;

const t = suite<Ctx>('each refusal as the CLI prints it against a real server');
t.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-hints-'));
  // One server for every case: a config folder whose server uses its operator token (svc init), on
  // a known port, with human ingress off, a members-only room and the test tokens added.
  const port = await freePort();
  const opDir = path.join(ctx.dir, 'op');
  assert.is((await cli(['init', '--yes', '--dir', opDir, '--network-id', 'opnet', '--listen', `127.0.0.1:${port}`])).code, 0);
  const file = path.join(opDir, 'svc.yaml');
  const c = parse(readFileSync(file, 'utf8'));
  c.server.human_ingress = false;
  // Only the target of the commands: the memory store starts on half the CPU (helpers/cli.ts).
  c.store = MEMORY_STORE;
  c.rooms.push({ id: 'ops', members: ['beta'], write_policy: 'members' });
  c.auth.tokens.push(...[TOKENS.admin, TOKENS.writer, TOKENS.observer].map((x) => ({ ...x, scopes: [...x.scopes] })));
  writeFileSync(file, stringify(c), { mode: 0o600 });
  ctx.s = await startServer({ dir: opDir, keepConfig: true });
  ctx.op = { dir: opDir, s: ctx.s, port };
});
t.after(async (ctx) => {
  // The server serves the next suite too, which stops it.
  server = ctx.s;
  rmSync(ctx.dir, { recursive: true, force: true });
});

const W = TOKENS.writer.value;
const line = (r: { stderr: string }) => r.stderr.trim();

t('a non-member writing gets svc rooms members ROOM --add AGENT', async ({ s, dir }) => {
  const r = await cli(['send', '--room', 'ops', '--as', 'gamma', 'hi', '--url', s.url, '--token', W], { cwd: dir });
  assert.is(r.code, 1);
  assert.is(
    line(r),
    'svc send: 403 forbidden: gamma is not a member of room ops (write_policy: members); add it to the room: svc rooms members ops --add gamma',
  );
});

t('a room for operators only says to send with an operator token', async ({ op }) => {
  // On an open network an agent registers itself and gets its own token: no operator credential.
  const operator = parse(readFileSync(path.join(op.dir, 'svc.yaml'), 'utf8')).auth.tokens.find((x: { id: string }) => x.id === 'operator');
  const desk = await op.s.post('/v1/rooms', { id: 'desk', write_policy: 'operators' }, operator.value);
  assert.ok(desk.status < 300, desk.text);
  const reg = await op.s.post('/v1/agents/register', { requested_agent_id: 'delta' });
  assert.ok(reg.status < 300, reg.text);
  const r = await cli(['send', '--room', 'desk', '--as', 'delta', 'hi', '--token', String(reg.body.agent_token)], { cwd: op.dir });
  assert.is(r.code, 1);
  assert.match(
    line(r),
    /^svc send: 403 forbidden: room desk accepts only operator credentials \(write_policy: operators\); send with an operator token: /,
  );
});

t('human ingress off names the setting', async ({ s, dir }) => {
  const r = await cli(['send', '--room', 'ops', '--human', 'ann', 'hi', '--url', s.url, '--token', W], { cwd: dir });
  assert.is(r.code, 1);
  assert.match(line(r), /^svc send: 403 forbidden: human messages are disabled .*; set server\.human_ingress: true in the server's config/);
});

t('an unknown room names svc rooms list; an unknown agent svc agents list', async ({ s, dir }) => {
  const room = await cli(['read', '--room', 'nope', '--url', s.url, '--token', TOKENS.observer.value], { cwd: dir });
  assert.is(room.code, 1);
  assert.is(line(room), 'svc read: 404 not_found: room nope not found; list the rooms: svc rooms list');
  const thread = await cli(['read', '--thread', 'nope', '--url', s.url, '--token', TOKENS.observer.value], { cwd: dir });
  assert.is(
    line(thread),
    'svc read: 404 not_found: thread nope not found; check the thread id: GET /v1/rooms/ROOM/threads lists the threads of a room (svc send --room ROOM --thread NEW starts one)',
  );
  const agent = await cli(['agents', 'get', 'nobody', '--url', s.url, '--token', TOKENS.observer.value], { cwd: dir });
  assert.is(agent.code, 1);
  assert.is(line(agent), 'svc agents get: 404 not_found: agent nobody not found; list the agents: svc agents list');
});

t('a missing scope names the scope and where the token came from', async ({ s, dir }) => {
  const r = await cli(['rooms', 'create', 'x', '--url', s.url], { cwd: dir, env: { SVC_TOKEN: TOKENS.observer.value } });
  assert.is(r.code, 1);
  assert.match(
    line(r),
    /^svc rooms create: 403 forbidden: the token lacks a required scope \(one of: admin\); the token in SVC_TOKEN lacks the admin scope this needs: .*auth\.tokens in the server's config/,
  );
});

t('an invalid token says which token was sent from where: --token, SVC_TOKEN', async ({ s, dir }) => {
  const [viaFlag, viaEnv] = await Promise.all([
    cli(['rooms', 'list', '--url', s.url, '--token', 'not-a-token-at-all'], { cwd: dir }),
    cli(['rooms', 'list', '--url', s.url], { cwd: dir, env: { SVC_TOKEN: 'not-a-token-at-all' } }),
  ]);
  assert.is(viaFlag.code, 1);
  assert.is(viaEnv.code, 1);
  assert.match(
    line(viaFlag),
    new RegExp(
      `^svc rooms list: 401 unauthorized: .*; the token given with --token was refused by ${s.url.replace(/[.]/g, '\\.')}: check it against auth\\.tokens`,
    ),
  );
  assert.match(
    line(viaEnv),
    /; the token in SVC_TOKEN was refused by .*: check it against auth\.tokens of that server's config, or unset SVC_TOKEN/,
  );
  assert.not.match(viaFlag.stderr + viaEnv.stderr, /not-a-token-at-all/);
});

t('an operator token the running server does not know says to restart it with this config', async ({ op }) => {
  // Another config for the same network and address, with an operator token that server never had.
  const c = parse(readFileSync(path.join(op.dir, 'svc.yaml'), 'utf8'));
  c.auth.tokens[0].value = 'an-operator-token-this-server-never-had-0123456789';
  const other = path.join(op.dir, 'other.yaml');
  writeFileSync(other, stringify(c), { mode: 0o600 });
  const r = await cli(['rooms', 'create', 'x', '--config', other], { cwd: op.dir });
  assert.is(r.code, 1);
  assert.is(
    line(r),
    `svc rooms create: 401 unauthorized: the bearer token is not valid; the operator token of other.yaml was refused by http://127.0.0.1:${op.port}: that server runs with another config or an older copy of it; restart it with svc serve --config ${other} (svc doctor checks)`,
  );
});

t('no token at all says where one would come from', async ({ s, dir }) => {
  const r = await cli(['rooms', 'create', 'x', '--url', s.url], { cwd: dir });
  assert.is(r.code, 1);
  assert.match(
    line(r),
    /^svc rooms create: 401 unauthorized: .*; no token was sent \(no --token, no SVC_TOKEN, no svc\.yaml here\): run the command in the server's config folder/,
  );
  // The whole line, and nothing on stdout.
  assert.match(
    r.stderr,
    /: run the command in the server's config folder \(or pass --config FILE\) so its operator token is used, or pass --token \(env SVC_TOKEN\)\n$/,
  );
  assert.is(r.stderr.split('\n').length, 2, 'one line');
  assert.is(r.stdout, '');
});

t.run();

const e = suite<{ s: TestServer; cwd: string }>('the CLI explains empty or filtered answers');

e.before(async (ctx) => {
  // The server above: svc init's open mode (public read, open registration).
  assert.ok(server, 'the server of the refusal suite');
  ctx.s = server!;
  // A folder with no svc.yaml: nothing supplies a token.
  ctx.cwd = mkdtempSync(path.join(tmpdir(), 'svc-empty-answers-'));
  const reg = await cli(['agents', 'register', '--id', 'gamma', '--url', ctx.s.url], { cwd: ctx.cwd });
  assert.is(reg.code, 0, reg.stderr);
  const room = await ctx.s.post('/v1/rooms', { id: 'hidden', visibility: 'private', members: ['gamma'] }, TOKENS.admin.value);
  assert.ok(room.status < 300, room.text);
  // svc init's general is public and joined on registration: its agents (gamma, and the suites' before)
  // leave it, so the only agent left is gamma in a private room.
  const general = await ctx.s.req('GET', '/v1/rooms/general', { token: TOKENS.admin.value });
  const left = await ctx.s.req('PATCH', '/v1/rooms/general/members', { token: TOKENS.admin.value, body: { remove: general.body.members } });
  assert.is(left.status, 200, left.text);
});
e.after(async (ctx) => {
  await ctx.s?.dispose();
  if (ctx.cwd) rmSync(ctx.cwd, { recursive: true, force: true });
});

e('svc agents list with no token says the empty answer is the anonymous view and how to see more', async ({ s, cwd }) => {
  const r = await cli(['agents', 'list', '--url', s.url], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), 'no agents visible to an anonymous caller');
  assert.match(
    r.stderr,
    /no token was sent, so this shows only what an anonymous caller may see \(only agents that are members of public rooms\)/,
  );
  assert.match(r.stderr, /pass --token with the observe scope/);
});

e('with an observe token the same listing shows the agent and no hint', async ({ s, cwd }) => {
  const r = await cli(['agents', 'list', '--url', s.url, '--token', TOKENS.observer.value], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^gamma\s/m);
  assert.is(r.stderr, '');
});

e('svc rooms list with no token lists public rooms and says private ones are hidden', async ({ s, cwd }) => {
  await s.post('/v1/rooms', { id: 'lobby' }, TOKENS.admin.value);
  const r = await cli(['rooms', 'list', '--url', s.url], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^lobby\s/m);
  assert.not.match(r.stdout, /hidden/);
  assert.match(r.stderr, /private rooms are hidden/);
  const json = await cli(['rooms', 'list', '--url', s.url, '--json'], { cwd });
  assert.is(json.code, 0);
  assert.is(json.stderr, '', 'machine output stays clean');
});

e('a 404 to an anonymous caller says, on its one line, that it may be the anonymous view', async ({ s, cwd }) => {
  const r = await cli(['agents', 'get', 'gamma', '--url', s.url], { cwd });
  assert.is(r.code, 1);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(
    r.stderr,
    /^svc agents get: 404 not_found: agent gamma not found; list the agents: svc agents list; no token was sent, and what is private looks missing to an anonymous caller: /,
  );
  const seen = await cli(['agents', 'get', 'gamma', '--url', s.url, '--token', TOKENS.observer.value], { cwd });
  assert.is(seen.code, 0, seen.stderr);
  const missing = await cli(['agents', 'get', 'nobody', '--url', s.url, '--token', TOKENS.observer.value], { cwd });
  assert.is(missing.code, 1);
  assert.not.match(missing.stderr, /anonymous/);
});

/** The stderr of `svc tail` up to its opening line (then the process is stopped). */
async function tailOpening(args: string[], cwd: string): Promise<string> {
  const p = spawnCli(['tail', ...args], { cwd });
  let err = '';
  const exited = new Promise((r) => p.once('exit', r));
  await new Promise<void>((resolve) => {
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      // The hint, when there is one, is written right after the opening line.
      if (/following events/.test(err)) setTimeout(resolve, 300);
    });
    p.once('exit', () => resolve());
  });
  p.kill('SIGINT');
  await exited;
  return err;
}

e('svc tail with no token says it follows only what an anonymous caller may see; with a token it does not', async ({ s, cwd }) => {
  const anon = await tailOpening(['--url', s.url], cwd);
  assert.match(anon, /svc tail: following events/);
  assert.match(
    anon,
    /no token was sent, so this shows only what an anonymous caller may see \(only message, thread and room-created events of public rooms\)/,
  );
  const seen = await tailOpening(['--url', s.url, '--token', TOKENS.observer.value], cwd);
  assert.match(seen, /svc tail: following events/);
  assert.not.match(seen, /anonymous/);
});

e.run();
