// svc react runs as a process against a real server (the app in the test process): adds as an agent
// and as a person, says when it was already there, removes, prints JSON, and refuses with one line
// and exit codes; svc read shows the reactions after each message's text.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, type CliResult } from '../helpers/cli.js';
import { roomMessage, TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  id: string;
  as: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
}

const t = suite<Ctx>('svc react');

t.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', members: ['delta', 'beta'] }] } });
  ctx.as = (args, env = {}) => cli([...args, '--url', ctx.s.url], { env: { SVC_TOKEN: TOKENS.admin.value, ...env } });
  const r = await ctx.s.post('/v1/messages', roomMessage('general', 'delta', 'deploy finished'), TOKENS.admin.value);
  assert.is(r.status, 200, r.text);
  ctx.id = r.body.message_id;
});
t.after(async ({ s }) => s.dispose());

t('adds a reaction as an agent, then says it was already there', async ({ id, as }) => {
  const r = await as(['react', id, '👍', '--as', 'beta']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, `added 👍 on ${id} as testnet:beta · 👍 1\n`);
  const again = await as(['react', id, '👍', '--as', 'beta']);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, `already there: 👍 on ${id} as testnet:beta · 👍 1\n`);
});

t('reacts as a person with --human and prints the answer with --json', async ({ id, as }) => {
  const r = await as(['react', id, ':ship:', '--human', 'ops', '--json']);
  assert.is(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.is(body.by, 'testnet:ops');
  assert.is(body.changed, true);
  assert.equal(
    body.reactions.map((x: { emoji: string }) => x.emoji),
    ['👍', ':ship:'],
  );
});

t('svc read shows the reactions after the text', async ({ as }) => {
  const r = await as(['read', '--room', 'general']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /deploy finished {2}\[👍 1 {2}:ship: 1\]\n/);
});

t('--remove takes a reaction back; removing it again fails with one line', async ({ id, as }) => {
  const r = await as(['react', id, ':ship:', '--human', 'ops', '--remove']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, `removed :ship: on ${id} as testnet:ops · 👍 1\n`);
  const again = await as(['react', id, ':ship:', '--human', 'ops', '--remove']);
  assert.is(again.code, 1);
  assert.is(again.stdout, '');
  assert.match(again.stderr, /^svc react: .*404 not_found.*reaction :ship: of testnet:ops/);
  assert.is(again.stderr.trim().split('\n').length, 1);
});

t('a bad emoji, a refused sender and a missing argument fail with their exit codes', async ({ id, as }) => {
  const bad = await as(['react', id, 'thumbs', '--as', 'beta']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /path\.emoji/);
  const outsider = await as(['react', id, '👍', '--as', 'zeta'], { SVC_TOKEN: TOKENS.writer.value });
  assert.is(outsider.code, 1);
  assert.match(outsider.stderr, /403/);
  const usage = await as(['react', id]);
  assert.is(usage.code, 2);
});

t.run();
