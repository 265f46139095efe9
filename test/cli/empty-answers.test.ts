// The CLI explains listings that the server filters by who asks: an anonymous caller (no token
// sent) under public read sees only public rooms and agents in them, and is told so.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, spawnCli, MEMORY_STORE } from '../helpers/cli.js';
import { startServer, TOKENS, type TestServer } from '../helpers/server.js';

const t = suite<{ s: TestServer; cwd: string }>('the CLI explains empty or filtered answers');

t.before(async (ctx) => {
  ctx.s = await startServer({ config: { store: MEMORY_STORE, auth: { mode: 'open', public_read: true, agent_registration: 'open' } } });
  // A folder with no svc.yaml: nothing supplies a token.
  ctx.cwd = mkdtempSync(path.join(tmpdir(), 'svc-empty-answers-'));
  const reg = await cli(['agents', 'register', '--id', 'gamma', '--url', ctx.s.url], { cwd: ctx.cwd });
  assert.is(reg.code, 0, reg.stderr);
  const room = await ctx.s.post('/v1/rooms', { id: 'hidden', visibility: 'private', members: ['gamma'] }, TOKENS.admin.value);
  assert.ok(room.status < 300, room.text);
});
t.after(async (ctx) => {
  await ctx.s.dispose();
  rmSync(ctx.cwd, { recursive: true, force: true });
});

t('svc agents list with no token says the empty answer is the anonymous view and how to see more', async ({ s, cwd }) => {
  const r = await cli(['agents', 'list', '--url', s.url], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), 'no agents visible to an anonymous caller');
  assert.match(
    r.stderr,
    /no token was sent, so this shows only what an anonymous caller may see \(only agents that are members of public rooms\)/,
  );
  assert.match(r.stderr, /pass --token with the observe scope/);
});

t('with an observe token the same listing shows the agent and no hint', async ({ s, cwd }) => {
  const r = await cli(['agents', 'list', '--url', s.url, '--token', TOKENS.observer.value], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^gamma\s/m);
  assert.is(r.stderr, '');
});

t('svc rooms list with no token lists public rooms and says private ones are hidden', async ({ s, cwd }) => {
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

t('a 404 to an anonymous caller says, on its one line, that it may be the anonymous view', async ({ s, cwd }) => {
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

t('svc tail with no token says it follows only what an anonymous caller may see; with a token it does not', async ({ s, cwd }) => {
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

t.run();
