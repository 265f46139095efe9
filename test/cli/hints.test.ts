// Every 401/403/404 the CLI prints ends with the command or setting that fixes that case: the pure
// choice with exact values, then each refusal as a real server gives it and the CLI prints it.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { refusalHint, type HintContext } from '../../src/cli/hints.js';
import { cli, freePort, MEMORY_STORE } from '../helpers/cli.js';
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
  c.auth.tokens.push(...[TOKENS.writer, TOKENS.observer].map((x) => ({ ...x, scopes: [...x.scopes] })));
  writeFileSync(file, stringify(c), { mode: 0o600 });
  ctx.s = await startServer({ dir: opDir, keepConfig: true });
  ctx.op = { dir: opDir, s: ctx.s, port };
});
t.after(async (ctx) => {
  await ctx.s.dispose();
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
  assert.is((await cli(['rooms', 'create', 'desk', '--write-policy', 'operators'], { cwd: op.dir })).code, 0);
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
