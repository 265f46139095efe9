// svc search run as a process against a real server: lines, filters, --json, paging hint, exit codes.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, TOKENS, roomMessage, type TestServer } from '../helpers/server.js';
import { cli, MEMORY_STORE } from '../helpers/cli.js';

const ADMIN = TOKENS.admin.value;

interface Ctx {
  s: TestServer;
  as: (args: string[], env?: Record<string, string>) => ReturnType<typeof cli>;
  ids: string[];
}

const t = suite<Ctx>('svc search against a running server');
t.before(async (c) => {
  c.s = await startServer({
    config: {
      store: MEMORY_STORE,
      rooms: [
        { id: 'ops', members: ['ann', 'bob'] },
        { id: 'random', members: ['bob'] },
      ],
    },
  });
  c.as = (args, env = {}) => cli([...args, '--url', c.s.url], { env: { SVC_TOKEN: ADMIN, ...env } });
  c.ids = [];
  for (const [room, from, text] of [
    ['ops', 'ann', 'the migration plan is ready'],
    ['random', 'bob', 'lunch, then the migration'],
    ['ops', 'bob', 'migration done\nall green'],
  ] as const) {
    const r = await c.s.post('/v1/messages', roomMessage(room, from, text), ADMIN);
    assert.is(r.status, 200, r.text);
    c.ids.push(r.body.message_id);
  }
});
t.after(async (c) => c.s.dispose());

t('prints one line per match, newest first: time, place, sender, snippet and id', async ({ as, ids }) => {
  const r = await as(['search', 'migration']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines.length, 3);
  assert.match(lines[0]!, new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  #ops  bob: \\*\\*migration\\*\\* done all green  ${ids[2]}$`));
  assert.match(lines[1]!, / {2}#random {2}bob: lunch, then the \*\*migration\*\* {2}/);
  assert.match(lines[2]!, / {2}#ops {2}ann: the \*\*migration\*\* plan is ready {2}/);
  assert.not.match(r.stdout, /\x1b\[/, 'no colour when stdout is not a TTY');
});

t('several words, --room and --from narrow the search', async ({ as, ids }) => {
  const both = await as(['search', 'migration', 'plan']);
  assert.is(both.code, 0, both.stderr);
  assert.is(both.stdout.trimEnd().split('\n').length, 1);
  assert.ok(both.stdout.includes(ids[0]!));
  const room = JSON.parse((await as(['search', 'migration', '--room', 'ops', '--json'])).stdout);
  assert.equal(
    room.messages.map((m: { id: string }) => m.id),
    [ids[2], ids[0]],
  );
  const from = JSON.parse((await as(['search', 'migr', '--from', 'bob', '--room', 'random', '--json'])).stdout);
  assert.equal(
    from.messages.map((m: { id: string }) => m.id),
    [ids[1]],
  );
});

t('--json prints the API answer, snippets included', async ({ as, ids }) => {
  const r = await as(['search', 'migration', '--json']);
  assert.is(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.equal(body.page, { has_more: false });
  assert.is(body.messages[0].id, ids[2]);
  assert.is(body.messages[0].snippet, '**migration** done all green');
});

t('--limit pages, and the hint names the next cursor', async ({ as, ids }) => {
  const r = await as(['search', 'migration', '--limit', '2']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`older matches: run again with --before ${ids[1]}`));
  const next = await as(['search', 'migration', '--limit', '2', '--before', ids[1]!, '--json']);
  assert.equal(
    JSON.parse(next.stdout).messages.map((m: { id: string }) => m.id),
    [ids[0]],
  );
});

t('no match is a friendly line and exit 0', async ({ as }) => {
  const r = await as(['search', 'zeppelin']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), 'no messages match "zeppelin"');
});

t('refusals are one line on stderr: no words is a usage error, bad input and missing scope fail', async ({ as }) => {
  const none = await as(['search']);
  assert.is(none.code, 2);
  assert.match(none.stderr, /missing required argument 'words'/);
  const punct = await as(['search', '!!!']);
  assert.is(punct.code, 1);
  assert.match(punct.stderr, /^svc search: .*query\.q: must contain at least one word/);
  assert.is(punct.stderr.trim().split('\n').length, 1);
  const writer = await as(['search', 'migration'], { SVC_TOKEN: TOKENS.writer.value });
  assert.is(writer.code, 1);
  assert.match(writer.stderr, /^svc search: /);
  assert.not.match(writer.stderr, /\n\s+at /, 'no stack trace');
});

t.run();
